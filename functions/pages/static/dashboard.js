// The metrics dashboard: calls GET organization/metrics of this origin with the pasted key.
// The key lives in this tab's session storage only; it is never put in a URL or a cookie.
const KEY_STORAGE = 'asset-protection.api-key';

const COUNTERS = [
  ['reports', 'Reports'],
  ['newThreats', 'Threats blocked'],
  ['threatsWatchlisted', 'Watchlisted'],
  ['takedownsFiled', 'Takedowns filed'],
  ['takedownsCompleted', 'Takedowns completed'],
  ['domainThreats', 'Domain threats'],
  ['twitterThreats', 'Twitter threats'],
  ['telegramThreats', 'Telegram threats'],
  ['otherThreats', 'Other threats'],
];

const $ = (id) => document.getElementById(id);
const keyForm = $('key-form');
const keyInput = $('api-key');
const filters = $('filters');
const brandSelect = $('brand');
const brandText = $('brand-slug');
const statusLine = $('status');
const results = $('results');
const charts = {};

const showStatus = (text, kind = '') => {
  statusLine.textContent = text;
  statusLine.className = kind;
};

const storedKey = () => sessionStorage.getItem(KEY_STORAGE) ?? '';

const messageOf = async (response) => {
  try {
    return (await response.json()).message ?? '';
  } catch {
    return '';
  }
};

const explain = async (response) => {
  if (response.status === 401) {
    return 'This API key was not accepted: it is unknown or revoked, or it is not an organization key.';
  }
  if (response.status === 400 || response.status === 403 || response.status === 404) {
    return (await messageOf(response)) || `The request was refused (${response.status}).`;
  }
  return `The service could not answer (${response.status}). Please try again in a moment.`;
};

const renderCounters = (metrics) => {
  const cards = COUNTERS.map(([field, label]) => {
    const card = document.createElement('div');
    card.className = 'counter';
    const name = document.createElement('div');
    name.className = 'label';
    name.textContent = label;
    const value = document.createElement('div');
    value.className = 'value';
    value.dataset.counter = field;
    value.textContent = String(metrics[field] ?? 0);
    card.append(name, value);
    return card;
  });
  $('counters').replaceChildren(...cards);
};

const draw = (id, config) => {
  charts[id]?.destroy();
  charts[id] = new window.Chart($(id), config);
};

const renderCharts = (body) => {
  const common = {
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    plugins: { legend: { display: false } },
  };
  draw('by-day', {
    type: 'bar',
    data: {
      labels: body.blockedByDay.map((day) => day.date),
      datasets: [{ data: body.blockedByDay.map((day) => day.count), backgroundColor: '#1f5fbf' }],
    },
    options: {
      ...common,
      scales: {
        x: { ticks: { maxRotation: 0, autoSkipPadding: 24 } },
        y: { beginAtZero: true, ticks: { precision: 0 } },
      },
    },
  });
  draw('by-type', {
    type: 'bar',
    data: {
      labels: body.blockedByType.map((entry) => entry.type),
      datasets: [{ data: body.blockedByType.map((entry) => entry.count), backgroundColor: '#1f5fbf' }],
    },
    options: { ...common, indexAxis: 'y', scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } },
  });
};

const query = () => {
  const params = new URLSearchParams();
  if ($('start-date').value) params.set('startDate', $('start-date').value);
  if ($('end-date').value) params.set('endDate', $('end-date').value);
  const brand = brandText.hidden ? brandSelect.value : brandText.value.trim();
  if (brand) params.set('brandSlug', brand);
  const text = params.toString();
  return text ? `?${text}` : '';
};

const loadBrands = async (key) => {
  const response = await fetch('organization/brands', { headers: { 'X-API-KEY': key } }).catch(() => undefined);
  if (!response?.ok) {
    brandSelect.hidden = true;
    brandText.hidden = false;
    return;
  }
  // A key accepted after one that was not: the list comes back in place of the free-text field.
  brandSelect.hidden = false;
  brandText.hidden = true;
  brandText.value = '';
  const { brands } = await response.json();
  const options = brands.map((brand) => {
    const option = document.createElement('option');
    option.value = brand.slug;
    option.textContent = brand.name;
    return option;
  });
  brandSelect.replaceChildren(brandSelect.options[0], ...options);
};

const loadMetrics = async () => {
  const key = storedKey();
  if (!key) return;
  showStatus('Loading …');
  let response;
  try {
    response = await fetch(`organization/metrics${query()}`, { headers: { 'X-API-KEY': key } });
  } catch {
    showStatus('The service could not be reached. Check your connection and try again.', 'error');
    return;
  }
  if (!response.ok) {
    results.hidden = true;
    showStatus(await explain(response), 'error');
    if (response.status === 401) filters.hidden = true;
    return;
  }
  const body = await response.json();
  filters.hidden = false;
  $('forget').hidden = false;
  results.hidden = false;
  renderCounters(body.metrics);
  renderCharts(body);
  const empty = body.blockedByDay.length === 0 && Object.values(body.metrics).every((value) => value === 0);
  showStatus(empty ? 'No activity in this range yet.' : '', empty ? 'empty' : '');
};

keyForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = keyInput.value.trim();
  if (!key) return;
  sessionStorage.setItem(KEY_STORAGE, key);
  keyInput.value = '';
  await loadBrands(key);
  await loadMetrics();
});

filters.addEventListener('submit', (event) => {
  event.preventDefault();
  loadMetrics();
});

$('forget').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_STORAGE);
  results.hidden = true;
  filters.hidden = true;
  $('forget').hidden = true;
  showStatus('The key is forgotten.');
});

if (storedKey()) loadBrands(storedKey()).then(loadMetrics);
