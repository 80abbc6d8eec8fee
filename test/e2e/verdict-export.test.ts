import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-export');
const ACME = 'acme-org-key-0123456789abcdef';
const server = createGateway();
let base = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'acme', name: 'Acme' }],
    apiKeys: [{ key: ACME, organization: 'acme' }],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': ACME },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) };
};

/** Every asset of one type and status changed yesterday or today, paged to the end. */
const exported = async (type: string, status: string) => {
  const assets: { content: string; status: string; watchStatus: string }[] = [];
  let next: string | null = null;
  do {
    const page = await call('POST', '/asset/list', { type, status, per_page: 1, ...(next ? { next_page: next } : {}) });
    expect(page.status).toBe(200);
    assets.push(
      ...page.body.assets.map(({ content, status, watchStatus }: Record<string, string>) => ({
        content,
        status,
        watchStatus,
      })),
    );
    next = page.body.next_page;
  } while (next !== null);
  return assets;
};

describe('the verdict export through the local gateway', () => {
  it('lists an allowlisted asset, approved threats, and a removed asset with its new status', async () => {
    const added = await call('POST', '/organization/assets', {
      assets: [{ content: 'https://export-brand.example' }, { content: 'https://export-gone.example' }],
    });
    const report = await call('POST', '/report/create', {
      title: 'Drainers',
      description: 'Two drainer sites',
      assets: [{ content: 'export-drainer.xyz' }, { content: 'export-airdrop.xyz' }],
    });
    const queue = await call('GET', '/organization/reports?needsCustomerReview=true');
    const proposals = queue.body.reports[0].proposals as { id: number; asset: { id: number } }[];
    for (const proposal of proposals) {
      const review = await call('POST', `/organization/proposals/${proposal.id}/review`, {
        assetId: proposal.asset.id,
        decision: 'APPROVE',
        label: 'General Phishing',
      });
      expect(review.status).toBe(200);
    }
    const removed = await call('DELETE', `/organization/assets/${added.body.results[1].id}`);

    const [allowed, blocked, unknown] = [
      await exported('URL', 'ALLOWED'),
      await exported('URL', 'BLOCKED'),
      await exported('URL', 'UNKNOWN'),
    ];

    expect([added.status, report.status, removed.status]).toEqual([200, 200, 200]);
    expect(allowed).toEqual([{ content: 'export-brand.example', status: 'ALLOWED', watchStatus: 'DISABLED' }]);
    expect(blocked.map((asset) => asset.content).sort()).toEqual(['export-airdrop.xyz', 'export-drainer.xyz']);
    expect(blocked.every((asset) => asset.status === 'BLOCKED' && asset.watchStatus === 'DISABLED')).toBe(true);
    expect(unknown).toEqual([{ content: 'export-gone.example', status: 'UNKNOWN', watchStatus: 'DISABLED' }]);
  });

  it('answers 400 for a missing type through the gateway, under both base paths', async () => {
    const v2 = await call('POST', '/asset/list', { status: 'BLOCKED' });
    const api = await fetch(`${base.replace('/v2', '/api/v2')}/asset/list`, {
      method: 'POST',
      headers: { 'X-API-KEY': ACME },
      body: JSON.stringify({ type: 'URL', per_page: 10_001 }),
    });

    expect(v2.status).toBe(400);
    expect(v2.body.message).toBe('Request body must be an object with a type');
    expect(api.status).toBe(400);
    expect(JSON.parse(await api.text()).message).toBe('per_page must be an integer between 1 and 10000');
  });
});
