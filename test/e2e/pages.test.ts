import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { ROUTES } from '../../infra/routes.ts';
import { ARTIFACTS, launchBrowser, watchedPage } from '../fixtures/browser.ts';
import { assertDocumented, openApiDocument } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('pages');
const server = createGateway();
let origin = '';
let browser: Browser;

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Redoc's attribution logo is an image on its CDN: the policy blocks it and the logo hides itself. */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

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
    expect(served === readFileSync('node_modules/redoc/bundles/redoc.standalone.js', 'utf8')).toBe(true);
    expect(unknown.status).toBe(404);
    expect(body).toEqual(expect.objectContaining({ code: 'NOT_FOUND', message: 'No such file' }));
    assertDocumented(route('get-static-file'), unknown.status, body);
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
    expect(problems.filter((problem) => !problem.includes(REDOC_LOGO))).toEqual([]);
  });
});
