import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, matchRoute } from '../../infra/local/gateway.ts';
import { assertDocumented } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-scans');
const ACME = 'acme-scan-key-0123456789abcdef';
const GLOBEX = 'globex-scan-key-0123456789abcdef';
const server = createGateway();
let base = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme', brands: [{ slug: 'acme-wallet', name: 'Acme Wallet' }] },
      { slug: 'globex', name: 'Globex' },
    ],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
    ],
    assets: [{ organization: 'acme', content: 'https://acme.com', type: 'URL', createdAt: '2026-01-02T03:04:05Z' }],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = JSON.parse(await response.text());
  const match = matchRoute(method, path);
  if (match) assertDocumented(match.route, response.status, parsed, (name) => response.headers.get(name));
  return { status: response.status, body: parsed };
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type ScanView = { status: string; result: { verdict: string } | null };
/** The scan once it left PENDING (read at most 200 times, 25 ms apart). */
const finished = async (scanId: number, key = ACME): Promise<ScanView> => {
  let scan = (await call('POST', '/scan/result', key, { scanId })).body as ScanView;
  for (let i = 0; i < 200 && scan.status === 'PENDING'; i++) {
    await pause(25);
    scan = (await call('POST', '/scan/result', key, { scanId })).body as ScanView;
  }
  return scan;
};
const reportsOf = async (content: string) =>
  (await call('GET', '/organization/reports?limit=100', ACME)).body.reports.filter(
    (report: { assets: { content: string }[] }) => report.assets.some((asset) => asset.content === content),
  );

describe('submissions and scans through the local gateway', () => {
  it('answers 100 submitted assets with their ids in order, the same id for the same content, and completes their scans', async () => {
    const assets = Array.from({ length: 100 }, (_, i) =>
      i === 99 ? 'https://WWW.example-shop-1.com/' : `example-shop-${i + 1}.com`,
    );

    const submitted = await call('POST', '/asset/submit', ACME, { assets, organizationSlug: 'acme' });
    const again = await call('POST', '/asset/submit', GLOBEX, { assets: ['example-shop-1.com', 'example-shop-2.com'] });
    const entries = submitted.body.submittedAssets as { asset: string; assetId: number; scanId: number }[];
    const scans = await Promise.all(entries.map((entry) => finished(entry.scanId)));

    expect(submitted.status).toBe(200);
    expect(entries.map((entry) => entry.asset)).toEqual(assets);
    expect(new Set(entries.slice(0, 99).map((entry) => entry.assetId)).size).toBe(99);
    expect(entries[99]?.assetId).toBe(entries[0]?.assetId);
    expect(again.body.submittedAssets).toEqual([
      { asset: 'example-shop-1.com', assetId: entries[0]?.assetId },
      { asset: 'example-shop-2.com', assetId: entries[1]?.assetId },
    ]);
    expect(new Set(entries.map((entry) => entry.scanId)).size).toBe(100);
    expect(scans.filter((scan) => scan.status === 'COMPLETED')).toHaveLength(100);
  });

  it('files exactly one report for a MALICIOUS content scanned twice for an organization', async () => {
    const content = 'https://acme-wallet-airdrop-claim.xyz/connect';

    const first = await call('POST', '/asset/scan', ACME, { content, organizationSlug: 'acme' });
    const second = await call('POST', '/asset/submit', ACME, { assets: [content], organizationSlug: 'acme' });
    const results = [await finished(first.body.scanId), await finished(second.body.submittedAssets[0].scanId)];
    const reports = await reportsOf(content);

    expect(first.body).toEqual({ scanId: expect.any(Number), status: 'PENDING', content });
    expect(results.map((scan) => [scan.status, scan.result?.verdict])).toEqual([
      ['COMPLETED', 'MALICIOUS'],
      ['COMPLETED', 'MALICIOUS'],
    ]);
    expect(reports).toHaveLength(1);
  });

  it("answers BENIGN for the organization's own domain and files nothing", async () => {
    const scan = await call('POST', '/asset/scan', ACME, { content: 'https://acme.com/login' });

    const result = await finished(scan.body.scanId);

    expect(result.result?.verdict).toBe('BENIGN');
    expect(await reportsOf('https://acme.com/login')).toEqual([]);
  });

  it("answers 404 for another organization's scan", async () => {
    const scan = await call('POST', '/asset/scan', ACME, { content: 'example-shop-7.com' });

    const response = await call('POST', '/scan/result', GLOBEX, { scanId: scan.body.scanId });

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'NOT_FOUND', message: 'Scan not found' });
  });

  it('answers 400 for more than 100 assets', async () => {
    const response = await call('POST', '/asset/submit', ACME, {
      assets: Array.from({ length: 101 }, (_, i) => `a${i}.com`),
    });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ issues: [{ message: 'assets must hold at most 100 assets' }] });
  });
});
