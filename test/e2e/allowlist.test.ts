import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFixture } from '../../infra/local/fixture.ts';
import { createGateway, matchRoute } from '../../infra/local/gateway.ts';
import { ROUTES } from '../../infra/routes.ts';
import { assertDocumented } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-allowlist');
const demo = parseFixture(JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
const ACME = demo.apiKeys.find((k) => k.organization === 'acme' && k.scopes.includes('write'))?.key as string;
const server = createGateway();
let host = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Sent = { body?: unknown; headers?: Record<string, string>; base?: string };
const request = async (method: string, path: string, { body, headers = {}, base = '/v2' }: Sent = {}) => {
  const response = await fetch(`${host}${base}${path}`, {
    method,
    headers: { 'X-API-KEY': ACME, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  const match = matchRoute(method, new URL(`${host}${base}${path}`).pathname.slice(base.length));
  if (match) assertDocumented(match.route, response.status, parsed, (name) => response.headers.get(name));
  return { status: response.status, headers: response.headers, body: parsed };
};
const errorOf = (code: string, message: string) => ({
  code,
  message,
  error: { code, message },
  requestId: expect.any(String),
});
const add = (assets: unknown[]) => request('POST', '/organization/assets', { body: { assets } });
const groupId = async (name: string) =>
  (await request('GET', '/organization/asset-groups')).body.groups.find((g: { name: string }) => g.name === name)
    .id as number;
const assetView = (content: string, type: string, group: { id: number; name: string } | null = null) => ({
  id: expect.any(Number),
  content,
  type,
  status: 'ALLOWED',
  description: null,
  group,
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
});

describe('POST /v2/organization/assets as documented', () => {
  it('adds the documented request, detecting each type, with one result per item', async () => {
    const response = await add([
      { content: 'https://example.com' },
      { content: '0x1234567890abcdef1234567890abcdef12345678' },
      { content: '@ourcompany' },
    ]);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      results: [
        {
          content: 'https://example.com',
          success: true,
          id: expect.any(Number),
          asset: assetView('https://example.com', 'URL'),
        },
        {
          content: '0x1234567890abcdef1234567890abcdef12345678',
          success: true,
          id: expect.any(Number),
          asset: assetView('0x1234567890abcdef1234567890abcdef12345678', 'ADDRESS'),
        },
        { content: '@ourcompany', success: true, id: expect.any(Number), asset: assetView('@ourcompany', 'TWITTER') },
      ],
      successCount: 3,
      errorCount: 0,
    });
    for (const result of response.body.results) expect(result.asset.id).toBe(result.id);
  });

  it('reports a partial success item by item, in input order, for the CSV import', async () => {
    const response = await add([
      { content: 'https://csv-one.example', name: 'One' },
      { content: 'not a url at all', type: 'URL' },
      { content: 'https://x.com/acme_csv', type: 'TWITTER' },
      { content: 'https://example.com/acme', type: 'DISCORD' },
    ]);
    const failed = response.body.results.filter((result: { success: boolean }) => !result.success);

    expect(response.status).toBe(200);
    expect(response.body.results.map((r: { content: string; success: boolean }) => [r.content, r.success])).toEqual([
      ['https://csv-one.example', true],
      ['not a url at all', false],
      ['https://x.com/acme_csv', true],
      ['https://example.com/acme', false],
    ]);
    expect(failed).toEqual([
      { content: 'not a url at all', success: false, error: 'Invalid asset format' },
      { content: 'https://example.com/acme', success: false, error: 'Invalid asset format' },
    ]);
    expect([response.body.successCount, response.body.errorCount]).toEqual([2, 2]);
    expect((await request('GET', '/organization/assets?query=not%20a%20url')).body.assets).toEqual([]);
  });

  it('refuses an asset the organization has and one repeated in the request, keeping the first', async () => {
    const response = await add([
      { content: 'https://acme.com' },
      { content: 'https://dup-once.example' },
      { content: 'HTTPS://DUP-ONCE.EXAMPLE/' },
    ]);

    expect(response.body).toEqual({
      results: [
        { content: 'https://acme.com', success: false, error: 'Asset already exists in organization' },
        {
          content: 'https://dup-once.example',
          success: true,
          id: expect.any(Number),
          asset: assetView('https://dup-once.example', 'URL'),
        },
        { content: 'HTTPS://DUP-ONCE.EXAMPLE/', success: false, error: 'Asset already exists in organization' },
      ],
      successCount: 1,
      errorCount: 2,
    });
  });

  it('adds 1,000 assets into a group in one request and refuses 1,001', async () => {
    const group = await request('POST', '/organization/asset-groups', { body: { name: 'Bulk' } });
    const assets = (n: number) => Array.from({ length: n }, (_, i) => ({ content: `https://bulk-${i}.example` }));

    const tooMany = await request('POST', '/organization/assets', { body: { assets: assets(1001) } });
    const added = await request('POST', '/organization/assets', {
      body: { assets: assets(1000).map((asset) => ({ ...asset, groupId: group.body.id })) },
    });
    const groups = await request('GET', '/organization/asset-groups');

    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject(errorOf('BAD_REQUEST', 'Maximum 1000 assets allowed per request'));
    expect([added.status, added.body.successCount, added.body.errorCount]).toEqual([200, 1000, 0]);
    expect(new Set(added.body.results.map((r: { id: number }) => r.id)).size).toBe(1000);
    expect(groups.body.groups.find((g: { id: number }) => g.id === group.body.id).assetCount).toBe(1000);
  });

  it('answers 404 for an unknown group and adds none of the request', async () => {
    const response = await add([
      { content: 'https://before-unknown.example' },
      { content: 'https://x.example', groupId: 999 },
    ]);
    const listed = await request('GET', '/organization/assets?query=before-unknown');

    expect(response.status).toBe(404);
    expect(response.body).toEqual(errorOf('NOT_FOUND', 'Group with ID 999 not found'));
    expect(listed.body.assets).toEqual([]);
  });

  it('answers 400 "Content is required" for an item without content', async () => {
    const response = await add([{ content: 'https://fine.example' }, { type: 'URL' }]);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject(errorOf('BAD_REQUEST', 'Content is required'));
  });
});

describe('PATCH /v2/organization/assets/{assetId} as documented', () => {
  it('answers the asset with groupId when it moves into a group, and groupId null when it leaves', async () => {
    const social = await groupId('Social');
    const id = (await add([{ content: 'https://t.me/acme_news' }])).body.results[0].id as number;

    const moved = await request('PATCH', `/organization/assets/${id}`, {
      body: { assetId: id, groupId: social, name: 'News' },
    });
    const left = await request('PATCH', `/organization/assets/${id}`, { body: { groupId: null, description: null } });

    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({
      ...assetView('https://t.me/acme_news', 'TELEGRAM', { id: social, name: 'Social' }),
      id,
      name: 'News',
      groupId: social,
    });
    expect(left.body).toEqual({ ...assetView('https://t.me/acme_news', 'TELEGRAM'), id, name: 'News', groupId: null });
  });

  it('answers 400 with the documented message when no field is given', async () => {
    const id = (await add([{ content: 'https://patch-nothing.example' }])).body.results[0].id as number;

    const response = await request('PATCH', `/organization/assets/${id}`, { body: { assetId: id } });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject(
      errorOf('BAD_REQUEST', 'At least one field (name, description, or groupId) must be provided'),
    );
  });
});

describe('ids repeated in the body', () => {
  it('answers 400 on asset PATCH and DELETE when the body names another asset, changing nothing', async () => {
    const id = (await add([{ content: 'https://mismatch.example' }])).body.results[0].id as number;

    const patched = await request('PATCH', `/organization/assets/${id}`, { body: { assetId: id + 1, name: 'X' } });
    const deleted = await request('DELETE', `/organization/assets/${id}`, { body: { assetId: id + 1 } });
    const still = await request('GET', '/organization/assets?query=mismatch.example');

    for (const response of [patched, deleted]) {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject(errorOf('BAD_REQUEST', 'Path parameter assetId does not match body'));
    }
    expect(still.body.assets.map((a: { id: number; name?: string }) => [a.id, a.name])).toEqual([[id, undefined]]);
  });

  it('answers 400 on group PATCH and DELETE when the body names another group, changing nothing', async () => {
    const wallets = await groupId('Wallets');

    const patched = await request('PATCH', `/organization/asset-groups/${wallets}`, {
      body: { groupId: wallets + 1, name: 'Renamed' },
    });
    const deleted = await request('DELETE', `/organization/asset-groups/${wallets}`, { body: { groupId: 999 } });
    const same = await request('PATCH', `/organization/asset-groups/${wallets}`, {
      body: { groupId: wallets, name: 'Wallets' },
    });

    for (const response of [patched, deleted]) {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject(errorOf('BAD_REQUEST', 'Path parameter groupId does not match body'));
    }
    expect(same.body).toEqual({ id: wallets, name: 'Wallets' });
  });
});

describe('base paths, CORS and dates', () => {
  it('answers every route under /api/v2 exactly as under /v2', async () => {
    const answer = async (base: string, method: string, path: string) => {
      const response = await fetch(`${host}${base}${path}`, { method, headers: { 'X-API-KEY': 'not-a-key' } });
      const text = (await response.text()).replace(/"requestId":"[^"]*"/, '"requestId":"…"');
      return { status: response.status, type: response.headers.get('content-type'), text };
    };
    for (const route of ROUTES) {
      const path = route.path.replace(/\{\w+\}/g, '1');

      const v2 = await answer('/v2', route.method, path);
      const api = await answer('/api/v2', route.method, path);

      expect(api, route.name).toEqual(v2);
      expect(v2.status === 404 && v2.text.includes('"message":"Not Found"'), route.name).toBe(false);
    }
  });

  it('answers a CORS preflight from a page of another origin', async () => {
    const response = await fetch(`${host}/v2/asset/check`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://wallet.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'x-api-key,content-type',
      },
    });

    expect(response.status).toBe(204);
    expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control')))).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET,POST,PATCH,DELETE,OPTIONS',
      'access-control-allow-headers': 'X-API-KEY,Authorization,Content-Type',
      'access-control-max-age': '600',
    });
  });

  it('lets a page of another origin read a response, under either base path', async () => {
    for (const base of ['/v2', '/api/v2']) {
      const response = await request('GET', '/organization/asset-groups', {
        base,
        headers: { Origin: 'https://dashboard.example' },
      });

      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('reads a date-time without an offset as UTC in both metrics endpoints', async () => {
    const get = await request('GET', '/organization/metrics?startDate=2024-01-01T00:00:00&endDate=2024-01-31T23:59:59');
    const legacy = await request('POST', '/public/getOrganizationMetrics', {
      body: { organizationSlug: 'acme', startDate: '2024-01-01T00:00:00', endDate: '2024-01-31T23:59:59' },
    });

    expect(get.status).toBe(200);
    expect(legacy.status).toBe(200);
    expect(legacy.body.blockedByDay).toEqual(get.body.blockedByDay);
  });
});
