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

/** One card: its label over its value, the value marked `data-<key>="<field>"`. */
const counterCard = (label, key, field, text) => {
  const card = document.createElement('div');
  card.className = 'counter';
  const name = document.createElement('div');
  name.className = 'label';
  name.textContent = label;
  const value = document.createElement('div');
  value.className = 'value';
  value.dataset[key] = field;
  value.textContent = text;
  card.append(name, value);
  return card;
};

const renderCounters = (metrics) => {
  const cards = COUNTERS.map(([field, label]) => counterCard(label, 'counter', field, String(metrics[field] ?? 0)));
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
  loadInsights(key);
  filters.hidden = false;
  $('forget').hidden = false;
  results.hidden = false;
  renderCounters(body.metrics);
  renderCharts(body);
  const empty = body.blockedByDay.length === 0 && Object.values(body.metrics).every((value) => value === 0);
  showStatus(empty ? 'No activity in this range yet.' : '', empty ? 'empty' : '');
};

// The insights panels: POST metrics/summary, metrics/breakdown, operations/queues/snapshot and
// the healthchecks (each implemented one of healthchecks/list) with the same key and dates; a failure there leaves the metrics above shown.
const SUMMARY = [
  ['medianTimeToBlockMinutes', 'Median time to block', (value) => `${value} min`],
  ['medianTimeToTakedownHours', 'Median time to take down', (value) => `${value} h`],
  ['detections', 'Detections', String],
  ['disputes', 'Disputes', String],
];

const post = async (path, key, body) => {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(await explain(response));
  return response.json();
};

const dates = () => ({
  ...($('start-date').value ? { startDate: $('start-date').value } : {}),
  ...($('end-date').value ? { endDate: $('end-date').value } : {}),
});

const cell = (text, className = '') => {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
};

const row = (cells, data) => {
  const tr = document.createElement('tr');
  Object.assign(tr.dataset, data);
  tr.append(...cells);
  return tr;
};

const seconds = (value) => {
  if (value === null) return '—';
  const days = Math.floor(value / 86400);
  return days > 0 ? `${days} d` : `${Math.floor(value / 3600)} h`;
};

const renderSummary = (summary) => {
  const cards = SUMMARY.map(([field, label, format]) =>
    counterCard(label, 'summary', field, summary[field] === null ? '—' : format(summary[field])),
  );
  $('summary').replaceChildren(...cards);
};

const loadBreakdown = async (key) => {
  const body = { ...dates(), metric: $('breakdown-metric').value, by: $('breakdown-by').value };
  const { rows } = await post('metrics/breakdown', key, body);
  const lines = rows.map((entry) => row([cell(entry.key), cell(String(entry.value), 'number')], { row: entry.key }));
  if (lines.length === 0) lines.push(row([cell('Nothing counted in this range'), cell('0', 'number')], {}));
  $('breakdown').tBodies[0].replaceChildren(...lines);
};

const renderQueues = ({ queues }) => {
  $('queues').tBodies[0].replaceChildren(
    ...queues.map((queue) =>
      row(
        [
          cell(queue.name === 'review' ? 'Proposals to review' : 'Takedowns open'),
          cell(String(queue.size), 'number'),
          cell(seconds(queue.oldestAgeSeconds), 'number'),
          cell(seconds(queue.p50AgeSeconds), 'number'),
          cell(queue.breaching ? `Breached (${seconds(queue.slaSeconds)})` : `Within ${seconds(queue.slaSeconds)}`),
        ],
        { queue: queue.name, breaching: String(queue.breaching) },
      ),
    ),
  );
};

const renderChecks = (checks) => {
  $('healthchecks').tBodies[0].replaceChildren(
    ...checks.map((check) => {
      const badge = document.createElement('span');
      badge.className = `badge ${check.severity}`;
      badge.textContent = check.severity;
      const severity = document.createElement('td');
      severity.append(badge);
      return row(
        [
          cell(check.id),
          severity,
          cell(String(check.observed), 'number'),
          cell(`${check.threshold.warn} / ${check.threshold.fail}`, 'number'),
          cell(check.suggestedAction),
        ],
        { check: check.id, status: check.severity },
      );
    }),
  );
};

// The registry names the checks; each implemented one is run at its own path (relative to the API base).
const loadChecks = async (key) => {
  const { checks } = await post('healthchecks/list', key, {});
  return Promise.all(checks.filter((entry) => entry.implemented).map((entry) => post(entry.path.slice(1), key, {})));
};

// The newest detections of the key's organization (GET validate names it), as POST detection/list gives them.
const DETECTIONS_SHOWN = 10;
const loadDetections = async (key) => {
  const response = await fetch('validate', { headers: { 'X-API-KEY': key } });
  if (!response.ok) throw new Error(await explain(response));
  const { organization } = await response.json();
  const lines = [];
  if (organization?.slug) {
    const { detections } = await post('detection/list', key, { slug: organization.slug, limit: DETECTIONS_SHOWN });
    for (const detection of detections) {
      lines.push(
        row(
          [
            cell(detection.threatContent),
            cell(detection.source),
            cell(detection.confidence),
            cell(detection.reportStatus ?? '—'),
          ],
          { detection: String(detection.id) },
        ),
      );
    }
    if (lines.length === 0) lines.push(row([cell('No detections yet')], {}));
  } else lines.push(row([cell('Detections are listed for an organization key')], {}));
  $('detections').tBodies[0].replaceChildren(...lines);
};

const loadInsights = async (key) => {
  const brand = brandText.hidden ? brandSelect.value : brandText.value.trim();
  $('insights-status').textContent = '';
  try {
    const [summary, queues, checks] = await Promise.all([
      post('metrics/summary', key, { ...dates(), ...(brand ? { brandSlug: brand } : {}) }),
      post('operations/queues/snapshot', key, {}),
      loadChecks(key),
      loadBreakdown(key),
      loadDetections(key),
    ]);
    renderSummary(summary);
    renderQueues(queues);
    renderChecks(checks);
  } catch (error) {
    $('insights-status').textContent = error instanceof Error ? error.message : 'The insights could not be loaded.';
  }
};

for (const id of ['breakdown-metric', 'breakdown-by']) {
  $(id).addEventListener('change', () => {
    loadBreakdown(storedKey()).catch((error) => {
      $('insights-status').textContent = error.message;
    });
  });
}
$('breakdown-form').addEventListener('submit', (event) => event.preventDefault());

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
