import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { inProcessScansSettled } from '../../shared/db/scan-queue.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

/*
 * The push sources through the local gateway: `/asset/submit` feeds EXTERNAL, unknown content an
 * organization scans or submits feeds its ASSET_CHECK.
 */
const table = await createTestTable('e2e-detection-feeds');
const ACME = 'acme-feeds-key-0123456789abcdef';
const GLOBEX = 'globex-feeds-key-0123456789abcdef';
const server = createGateway();
let base = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      {
        slug: 'acme',
        name: 'Acme',
        brands: [{ slug: 'acme-wallet', name: 'Acme Wallet', includedTerms: ['acme', 'acme wallet'] }],
      },
      { slug: 'globex', name: 'Globex', brands: [{ slug: 'globex-pay', name: 'Globex Pay' }] },
    ],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (path: string, apiKey: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': apiKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
type Listed = { threatContent: string; source: string; reportStatus: string; configId: number };
const detections = async (apiKey: string, slug: string, source: string) => {
  const listed = await call('/detection/list', apiKey, {
    slug,
    limit: 100,
    filters: [{ property: 'source', operator: 'in', value: [source] }],
  });
  return listed.body.detections as Listed[];
};

describe('EXTERNAL from /asset/submit', () => {
  it('records every asset an organization submits as an EXTERNAL detection of its enabled config, and nothing for one without', async () => {
    const config = await call('/detection/configs/create', ACME, { slug: 'acme', source: 'EXTERNAL', config: {} });
    const submitted = await call('/asset/submit', ACME, {
      assets: ['https://acme-wallet-support.app/ticket', 'bluecloud-garden.org'],
      organizationSlug: 'acme',
    });
    const other = await call('/asset/submit', GLOBEX, { assets: ['globex-pay-help.xyz'], organizationSlug: 'globex' });
    await inProcessScansSettled();

    const found = await detections(ACME, 'acme', 'EXTERNAL');
    expect(submitted.status).toBe(200);
    expect(other.status).toBe(200);
    expect(found.map((d) => d.threatContent).sort()).toEqual([
      'bluecloud-garden.org',
      'https://acme-wallet-support.app/ticket',
    ]);
    expect(new Set(found.map((d) => d.configId))).toEqual(new Set([config.body.id]));
    expect(await detections(GLOBEX, 'globex', 'EXTERNAL')).toEqual([]);
  });
});

describe('ASSET_CHECK from scans', () => {
  it('records unknown scanned content that scores as a lookalike, and not content that does not', async () => {
    await call('/detection/configs/create', ACME, { slug: 'acme', source: 'ASSET_CHECK', config: {} });

    await call('/asset/scan', ACME, { content: 'acme-airdrop.click', organizationSlug: 'acme' });
    await call('/asset/scan', ACME, { content: 'quiet-meadow-garden.org', organizationSlug: 'acme' });
    await inProcessScansSettled();

    expect((await detections(ACME, 'acme', 'ASSET_CHECK')).map((d) => d.threatContent)).toEqual(['acme-airdrop.click']);
  });
});
