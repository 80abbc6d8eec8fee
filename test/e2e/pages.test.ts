import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoActivity } from '../../infra/local/demo-activity.ts';
import { parseFixture } from '../../infra/local/fixture.ts';
import { createGateway } from '../../infra/local/gateway.ts';
import { ROUTES } from '../../infra/routes.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { applyActivities } from '../../shared/domain/lifecycle/activity.ts';
import { ARTIFACTS, launchBrowser, watchedPage } from '../fixtures/browser.ts';
import { assertDocumented, openApiDocument } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('pages');
const demo = parseFixture(JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
const ACME = demo.apiKeys.find((k) => k.organization === 'acme' && k.scopes.includes('write'))?.key as string;
const server = createGateway();
let origin = '';
let browser: Browser;

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await applyActivities(suffixes, activityRepository(table.db, table.tableName), demoActivity(suffixes, new Date()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const route = (name: string) => ROUTES.find((r) => r.name === name) as (typeof ROUTES)[number];

const operationIds = Object.values(openApiDocument.paths).flatMap((item) =>
  Object.values(item).map((operation) => (operation as unknown as { operationId: string }).operationId),
);

describe('the static files of the pages', () => {
  it('serves the rendering library gzip-compressed from this origin, and 404 for any other name', async () => {
    const library = await fetch(`${origin}/v2/static/redoc.standalone.js`, { headers: { 'accept-encoding': 'gzip' } });
    const unknown = await fetch(`${origin}/v2/static/..%2Fpackage.json`);
    const body = await unknown.json();
    const served = await library.text();

    expect(library.status).toBe(200);
    expect(library.headers.get('content-encoding')).toBe('gzip');
    expect(library.headers.get('content-type')).toBe('text/javascript');
    const installed = readFileSync('node_modules/redoc/bundles/redoc.standalone.js', 'utf8');
    // The library as installed, but for its logo's CDN address (functions/pages/files.ts).
    expect(served === installed.replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', 'data:,')).toBe(true);
    expect(served.includes('cdn.redoc.ly')).toBe(false);
    expect(unknown.status).toBe(404);
    expect(body).toEqual(expect.objectContaining({ code: 'NOT_FOUND', message: 'No such file' }));
    assertDocumented(route('get-static-file'), unknown.status, body, (name) => unknown.headers.get(name));
  });
});

describe('the API reference page', () => {
  it('renders every operation of the description, offline and within its Content-Security-Policy', async () => {
    const { page, foreignRequests, problems } = await watchedPage(browser, origin);

    const response = await page.goto(`${origin}/v2/docs`);
    await page.locator('[data-section-id^="operation/"]').first().waitFor({ timeout: 30_000 });
    const rendered = await page
      .locator('[data-section-id^="operation/"]')
      .evaluateAll((sections) => sections.map((section) => section.getAttribute('data-section-id')));
    await page.screenshot({ path: `${ARTIFACTS}/docs.png` });

    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(rendered.sort()).toEqual(operationIds.map((id) => `operation/${id}`).sort());
    expect(foreignRequests).toEqual([]);
    expect(problems).toEqual([]);
  });
});

type Canvas = {
  width: number;
  height: number;
  getContext(
    kind: '2d',
  ): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
};

/** Pixels a chart has drawn on its canvas (not transparent). */
const paintedPixels = (page: Page, id: string) =>
  page.locator(`#${id}`).evaluate((canvas: Canvas) => {
    const { data } = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height) ?? { data: [] };
    let painted = 0;
    for (let alpha = 3; alpha < data.length; alpha += 4) if ((data[alpha] ?? 0) > 0) painted++;
    return painted;
  });

const counters = (page: Page) =>
  page
    .locator('[data-counter]')
    .evaluateAll((cells) =>
      Object.fromEntries(cells.map((cell) => [cell.getAttribute('data-counter'), Number(cell.textContent)])),
    );

const signIn = async (page: Page, key: string) => {
  await page.goto(`${origin}/v2/dashboard`);
  await page.fill('#api-key', key);
  await page.click('#key-form button[type=submit]');
};

describe('the metrics dashboard', () => {
  it("shows the demo organization's counters as the API returns them and draws both charts", async () => {
    const response = await fetch(`${origin}/v2/organization/metrics`, { headers: { 'X-API-KEY': ACME } });
    const api = (await response.json()) as { metrics: Record<string, number> };
    const { page, foreignRequests, problems } = await watchedPage(browser, origin);

    await signIn(page, ACME);
    await page.locator('[data-counter="reports"]').waitFor();
    const shown = await counters(page);
    const painted = { byDay: await paintedPixels(page, 'by-day'), byType: await paintedPixels(page, 'by-type') };
    const stored = { url: page.url(), cookies: await page.context().cookies() };
    await page.screenshot({ path: `${ARTIFACTS}/dashboard.png`, fullPage: true });

    expect(api.metrics.newThreats).toBeGreaterThan(0);
    expect(shown).toEqual(api.metrics);
    expect(painted.byDay).toBeGreaterThan(1000);
    expect(painted.byType).toBeGreaterThan(1000);
    expect(stored).toEqual({ url: `${origin}/v2/dashboard`, cookies: [] });
    expect(foreignRequests).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('shows the metrics of the picked date range, and says so when the range has no activity', async () => {
    const { page, problems } = await watchedPage(browser, origin);
    await signIn(page, ACME);
    await page.locator('[data-counter="reports"]').waitFor();

    await page.fill('#start-date', '2001-01-01');
    await page.fill('#end-date', '2001-01-31');
    await page.click('#filters button[type=submit]');
    await page.locator('#status.empty').waitFor();
    const empty = { status: await page.textContent('#status'), shown: await counters(page) };
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-no-data.png`, fullPage: true });

    expect(empty.status).toBe('No activity in this range yet.');
    expect(Object.values(empty.shown).every((value) => value === 0)).toBe(true);
    expect(problems).toEqual([]);
  });

  it("shows the picked brand's metrics, from the organization's brand list", async () => {
    const response = await fetch(`${origin}/v2/organization/metrics?brandSlug=acme-wallet`, {
      headers: { 'X-API-KEY': ACME },
    });
    const api = (await response.json()) as { metrics: Record<string, number> };
    const { page, problems } = await watchedPage(browser, origin);
    await signIn(page, ACME);
    await page.locator('[data-counter="reports"]').waitFor();

    await page.selectOption('#brand', 'acme-wallet');
    await page.click('#filters button[type=submit]');

    expect(api.metrics.threatsWatchlisted).toBe(0);
    await expect.poll(() => counters(page)).toEqual(api.metrics);
    expect(problems).toEqual([]);
  });

  it('says clearly that a wrong key was not accepted, and shows no metrics', async () => {
    const { page, problems } = await watchedPage(browser, origin);

    await signIn(page, 'not-a-key-0123456789');
    await page.locator('#status.error').waitFor();
    const status = await page.textContent('#status');
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-wrong-key.png` });

    expect(status).toBe('This API key was not accepted: it is unknown or revoked, or it is not an organization key.');
    expect(await page.locator('#results').isHidden()).toBe(true);
    expect(problems.filter((problem) => !problem.includes('401'))).toEqual([]);
  });
});

describe('the pages at their address with a trailing slash', () => {
  it('redirects /v2/docs/ to /v2/docs, which renders the reference', async () => {
    const { page, problems } = await watchedPage(browser, origin);

    await page.goto(`${origin}/v2/docs/`);
    await page.locator('[data-section-id^="operation/"]').first().waitFor({ timeout: 30_000 });

    expect(page.url()).toBe(`${origin}/v2/docs`);
    expect(problems).toEqual([]);
  });

  it('redirects /api/v2/dashboard/ to /api/v2/dashboard, whose form signs in and shows the counters', async () => {
    const { page, problems } = await watchedPage(browser, origin);

    await page.goto(`${origin}/api/v2/dashboard/`);
    await page.fill('#api-key', ACME);
    await page.click('#key-form button[type=submit]');
    await page.locator('[data-counter="reports"]').waitFor();

    expect(page.url()).toBe(`${origin}/api/v2/dashboard`);
    expect(Object.keys(await counters(page)).length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});

describe('the dashboard after a key that was not accepted', () => {
  it('shows the brand list again once a good key is given', async () => {
    const { page } = await watchedPage(browser, origin);
    await signIn(page, 'not-a-key');
    await page.locator('#status').filter({ hasText: /./ }).waitFor();

    await page.fill('#api-key', ACME);
    await page.click('#key-form button[type=submit]');
    await page.locator('[data-counter="reports"]').waitFor();
    const brands = await page
      .locator('#brand option')
      .evaluateAll((options) => options.map((option) => option.getAttribute('value')));

    expect(await page.locator('#brand').isVisible()).toBe(true);
    expect(await page.locator('#brand-slug').isVisible()).toBe(false);
    expect(brands).toEqual(['', 'acme-exchange', 'acme-wallet']);
  });
});
