import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { ARTIFACTS, launchBrowser, watchedPage } from '../fixtures/browser.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-report-page');
const ACME = 'acme-report-page-key-0123456789abcdef';
const CONTENTS = ['report-page-phish.xyz', 'report-page-pending.xyz'];
/** What the report holds that its public page must never show. */
const PRIVATE = ['Scam links in the support channel', 'Posted by a new member', 'reporter@example.com', 'helpful-bot'];
const server = createGateway();
let origin = '';
let browser: Browser;
let report: { id: number; createdAt: string };
let reportUrl = '';

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${origin}/v2${path}`, {
    method,
    headers: { 'X-API-KEY': ACME },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'acme', name: 'Acme' }],
    apiKeys: [{ key: ACME, organization: 'acme' }],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const created = await call('POST', '/report/create', {
    title: PRIVATE[0],
    description: PRIVATE[1],
    contactInfo: PRIVATE[2],
    externalReporter: { platform: 'discord', platformIdentifier: '42', displayName: PRIVATE[3] },
    assets: CONTENTS.map((content) => ({ content })),
  });
  report = created.body as typeof report;
  const listed = (await call('GET', '/organization/reports')).body as {
    reports: { proposals: { id: number; asset: { id: number; content: string } }[] }[];
  };
  const proposal = listed.reports[0]?.proposals.find((p) => p.asset.content === CONTENTS[0]);
  if (proposal === undefined) throw new Error('The report has no proposal for its first content');
  await call('POST', `/organization/proposals/${proposal.id}/review`, {
    assetId: proposal.asset.id,
    decision: 'APPROVE',
    label: 'General Phishing',
  });
  reportUrl = (await call('POST', '/asset/details', { content: CONTENTS[0] })).body.reportUrl as string;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the public report page', () => {
  it('is where the reportUrl of the asset details leads, under the local gateway’s own address', () => {
    expect(reportUrl).toBe(`${origin}/v2/reports/${report.id}`);
  });

  it('shows the report’s id, status, dates and each approved asset’s current verdict, without a key and within its policy', async () => {
    const { page, foreignRequests, problems } = await watchedPage(browser, origin);

    const response = await page.goto(reportUrl);
    const shown = {
      id: await page.locator('#report-id').textContent(),
      status: await page.locator('#report-status').textContent(),
      created: await page.locator('#report-created').getAttribute('datetime'),
      updated: await page.locator('#report-updated').getAttribute('datetime'),
      assets: await page
        .locator('#assets tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => [
            row.querySelector('code')?.textContent,
            row.querySelector('[data-verdict]')?.getAttribute('data-verdict'),
          ]),
        ),
    };
    const text = await page.locator('body').innerText();
    const background = await page
      .locator('.verdict.blocked')
      .evaluate((badge) => badge.ownerDocument.defaultView?.getComputedStyle(badge).backgroundColor);
    await page.screenshot({ path: `${ARTIFACTS}/report.png`, fullPage: true });

    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(shown).toEqual({
      id: String(report.id),
      status: 'IN_PROGRESS',
      created: report.createdAt,
      updated: expect.any(String),
      assets: [[CONTENTS[0], 'BLOCKED']],
    });
    // The proposal still pending is the organization's: its content is not on the page.
    expect(text).not.toContain(CONTENTS[1]);
    // The stylesheet loaded from this origin: the blocked badge is red.
    expect(background).toBe('rgb(211, 47, 47)');
    expect(PRIVATE.filter((secret) => text.includes(secret))).toEqual([]);
    expect(foreignRequests).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('never carries the reporter, the contact or the report’s text in its HTML', async () => {
    const html = await (await fetch(reportUrl)).text();

    expect(PRIVATE.filter((secret) => html.includes(secret))).toEqual([]);
  });

  it('answers a 404 page for an unknown id, and for an id no report could have', async () => {
    const { page } = await watchedPage(browser, origin);

    const unknown = await page.goto(`${origin}/v2/reports/1234567890123456`);
    const heading = await page.locator('h1').textContent();
    await page.screenshot({ path: `${ARTIFACTS}/report-not-found.png` });
    const odd = await fetch(`${origin}/api/v2/reports/${encodeURIComponent('<script>')}`);

    expect(unknown?.status()).toBe(404);
    expect(heading).toBe('Report not found');
    expect(odd.status).toBe(404);
    expect(await odd.text()).not.toContain('<script>');
  });
});
