import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFixture } from '../../infra/local/fixture.ts';
import { createGateway, matchRoute } from '../../infra/local/gateway.ts';
import { assertDocumented, openApiDocument } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e');
const demo = parseFixture(JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
const ACME = demo.apiKeys.find((k) => k.organization === 'acme' && k.scopes.includes('write'))?.key as string;
const server = createGateway();
let base = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const request = async (
  method: string,
  path: string,
  { key = ACME, body }: { key?: string | null; body?: string } = {},
) => {
  const response = await fetch(`${base}${path}`, { method, body, headers: key ? { 'X-API-KEY': key } : {} });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  const match = matchRoute(method, new URL(`${base}${path}`).pathname.slice('/v2'.length));
  if (match) assertDocumented(match.route, response.status, parsed, (name) => response.headers.get(name));
  return { status: response.status, headers: response.headers, body: parsed };
};

describe('the local gateway serving the demo fixture', () => {
  it("lists the demo organization's groups with a demo key", async () => {
    const response = await request('GET', '/organization/asset-groups');

    expect(response.status).toBe(200);
    expect(response.body.groups.map((g: { name: string }) => g.name)).toEqual(['Websites', 'Social', 'Wallets']);
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  it('creates a group, adds an asset to it, lists it, and removes it again', async () => {
    const group = await request('POST', '/organization/asset-groups', { body: JSON.stringify({ name: 'Campaigns' }) });
    const added = await request('POST', '/organization/assets', {
      body: JSON.stringify({ assets: [{ content: 'https://promo.acme.com', groupId: group.body.id }] }),
    });
    const id = added.body.results[0].id as number;
    const listed = await request('GET', `/organization/assets?groupId=${group.body.id}`);
    const removed = await request('DELETE', `/organization/assets/${id}`, { body: JSON.stringify({ assetId: id }) });
    const again = await request('DELETE', `/organization/assets/${id}`);
    const groups = await request('GET', '/organization/asset-groups');

    expect(group.status).toBe(200);
    expect(listed.body.assets.map((a: { id: number }) => a.id)).toEqual([id]);
    expect(listed.body.assets[0].group).toEqual({ id: group.body.id, name: 'Campaigns' });
    expect(removed.body).toEqual({ success: true, id });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(`Asset with ID ${id} not found`);
    expect(groups.body.groups.find((g: { name: string }) => g.name === 'Campaigns').assetCount).toBe(0);
  });

  it("answers 403 for another organization's asset and 400 when the body id differs from the path", async () => {
    const globexKey = demo.apiKeys.find((k) => k.organization === 'globex')?.key as string;
    const theirs = (await request('GET', '/organization/assets', { key: globexKey })).body.assets[0].id as number;

    const foreign = await request('DELETE', `/organization/assets/${theirs}`);
    const mismatch = await request('DELETE', `/organization/assets/${theirs}`, {
      key: globexKey,
      body: '{"assetId": 1}',
    });

    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe('Asset does not belong to your organization');
    expect(mismatch.status).toBe(400);
  });

  it('gives every error the flat and the wrapped shape with a request id', async () => {
    const responses = [
      await request('GET', '/organization/asset-groups', { key: null }),
      await request('POST', '/organization/asset-groups', { body: 'not json' }),
      await request('GET', '/organization/assets?per_page=5000'),
      await request('GET', '/no/such/route'),
    ];

    expect(responses.map((r) => r.status)).toEqual([401, 400, 400, 404]);
    for (const { body } of responses) {
      expect(body).toMatchObject({
        code: expect.any(String),
        message: expect.any(String),
        requestId: expect.any(String),
      });
      expect(body.error).toEqual({ code: body.code, message: body.message });
    }
  });

  it('serves the committed API description without a key', async () => {
    const response = await request('GET', '/openapi.json', { key: null });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual(openApiDocument);
  });

  it('stores no plaintext API key anywhere in the table', async () => {
    const { Items = [] } = await table.db.send(new ScanCommand({ TableName: table.tableName }));
    const everything = JSON.stringify(Items);

    expect(Items.length).toBeGreaterThan(0);
    for (const apiKey of demo.apiKeys) expect(everything).not.toContain(apiKey.key);
  });
});
