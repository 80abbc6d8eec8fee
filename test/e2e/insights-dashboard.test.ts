import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoActivity } from '../../infra/local/demo-activity.ts';
import { parseFixture } from '../../infra/local/fixture.ts';
import { createGateway } from '../../infra/local/gateway.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { inProcessScansSettled } from '../../shared/db/scan-queue.ts';
import { applyActivities } from '../../shared/domain/lifecycle/activity.ts';
import { ARTIFACTS, launchBrowser, watchedPage } from '../fixtures/browser.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('insights-dashboard');
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
  // Detections to list: acme's EXTERNAL config turns what it submits into detections.
  await api('detection/configs/create', { slug: 'acme', source: 'EXTERNAL', config: {} });
  await api('asset/submit', {
    assets: ['https://acme-wallet-support.app/ticket', 'acme-airdrop.click'],
    organizationSlug: 'acme',
  });
  await inProcessScansSettled();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const api = async (path: string, body: unknown) => {
  const response = await fetch(`${origin}/v2/${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': ACME, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return response.json();
};

const signIn = async (page: Page) => {
  await page.goto(`${origin}/v2/dashboard`);
  await page.fill('#api-key', ACME);
  await page.click('#key-form button[type=submit]');
  await page.locator('#healthchecks tbody tr').first().waitFor();
};

const tableRows = (page: Page, id: string, attribute: string) =>
  page
    .locator(`#${id} tbody tr[data-${attribute}]`)
    .evaluateAll(
      (rows, name) =>
        rows.map((row) => [row.getAttribute(`data-${name}`), row.querySelectorAll('td')[1]?.textContent ?? '']),
      attribute,
    );

describe('the insights panels of the dashboard', () => {
  it('shows the summary, breakdown, queues and healthchecks the API returns for the key', async () => {
    const summary = (await api('metrics/summary', {})) as Record<string, number | null>;
    const breakdown = (await api('metrics/breakdown', { by: 'source', metric: 'newThreats' })) as {
      rows: { key: string; value: number }[];
    };
    const registry = (await api('healthchecks/list', {})) as { checks: { path: string; implemented: boolean }[] };
    const checks = (await Promise.all(
      registry.checks.filter((entry) => entry.implemented).map((entry) => api(entry.path.slice(1), {})),
    )) as { id: string; severity: string }[];
    const { page, foreignRequests, problems } = await watchedPage(browser, origin);

    await signIn(page);
    const shown = {
      summary: await page
        .locator('[data-summary]')
        .evaluateAll((cells) =>
          Object.fromEntries(cells.map((cell) => [cell.getAttribute('data-summary'), cell.textContent])),
        ),
      breakdown: await tableRows(page, 'breakdown', 'row'),
      checks: await page
        .locator('#healthchecks tbody tr')
        .evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-check'), row.getAttribute('data-status')])),
      queues: await page.locator('#queues tbody tr').count(),
    };
    await page.locator('#insights').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-insights.png`, fullPage: true });

    expect(summary.newThreats).toBeGreaterThan(0);
    expect(shown.summary).toEqual({
      medianTimeToBlockMinutes:
        summary.medianTimeToBlockMinutes === null ? '—' : `${summary.medianTimeToBlockMinutes} min`,
      medianTimeToTakedownHours:
        summary.medianTimeToTakedownHours === null ? '—' : `${summary.medianTimeToTakedownHours} h`,
      detections: String(summary.detections),
      disputes: String(summary.disputes),
    });
    expect(shown.breakdown).toEqual(breakdown.rows.map((entry) => [entry.key, String(entry.value)]));
    expect(shown.checks).toEqual(checks.map((check) => [check.id, check.severity]));
    expect(shown.queues).toBe(2);
    expect(foreignRequests).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('shows another breakdown when the dimension is changed', async () => {
    const byType = (await api('metrics/breakdown', { by: 'type', metric: 'newThreats' })) as {
      rows: { key: string; value: number }[];
    };
    const { page, problems } = await watchedPage(browser, origin);
    await signIn(page);

    await page.selectOption('#breakdown-by', 'type');

    const expected = byType.rows.map((entry) => [entry.key, String(entry.value)]);
    await expect.poll(() => tableRows(page, 'breakdown', 'row')).toEqual(expected);
    expect(problems).toEqual([]);
  });

  it("lists the newest detections of the key's organization as the API lists them", async () => {
    const listed = (await api('detection/list', { slug: 'acme', limit: 10 })) as {
      detections: { id: number; threatContent: string; source: string; confidence: string; reportStatus: string }[];
    };
    const { page, problems } = await watchedPage(browser, origin);

    await signIn(page);
    await page.locator('#detections tbody tr[data-detection]').first().waitFor();
    const shown = await page
      .locator('#detections tbody tr[data-detection]')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));

    expect(listed.detections.length).toBeGreaterThanOrEqual(2);
    expect(shown).toEqual(listed.detections.map((d) => [d.threatContent, d.source, d.confidence, d.reportStatus]));
    expect(problems).toEqual([]);
  });
});
