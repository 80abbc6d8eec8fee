import { beforeAll, describe, expect, it } from 'vitest';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, GLOBEX_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('pages');
const { handler: createGroup } = await import('../../functions/asset-groups/create.ts');
const { handler: createAssets } = await import('../../functions/assets/create.ts');
const { handler: deleteAsset } = await import('../../functions/assets/delete.ts');
const { handler: listAssets } = await import('../../functions/assets/list.ts');

const ACME = ACME_KEY;
const GLOBEX = GLOBEX_KEY;
const TYPES = ['URL', 'TWITTER', 'ADDRESS'] as const;

type Listed = {
  id: number;
  content: string;
  type: string;
  name?: string;
  group: { id: number } | null;
  createdAt: string;
};
type Page = { assets: Listed[]; next_page?: string | null };

const list = async (apiKey: string, query: Record<string, string>) =>
  await call(listAssets, apiEvent({ apiKey, query }));

const walk = async (apiKey: string, filters: Record<string, string>, perPage: number) => {
  const seen: Listed[] = [];
  let next: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const response = await list(apiKey, {
      ...filters,
      per_page: String(perPage),
      ...(next ? { next_page: next } : {}),
    });
    expect(response.statusCode).toBe(200);
    const page = response.body as Page;
    expect(page.assets.length).toBeLessThanOrEqual(perPage);
    seen.push(...page.assets);
    if (!page.next_page) return seen;
    next = page.next_page;
  }
  throw new Error('pagination did not end');
};

let groupA = 0;
let live: Listed[] = [];

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
  const group = async (name: string) =>
    ((await call(createGroup, apiEvent({ method: 'POST', apiKey: ACME, body: { name } }))).body as { id: number }).id;
  groupA = await group('A');
  const groupB = await group('B');
  const groups = [groupA, groupB, null];
  const assets = Array.from({ length: 240 }, (_, i) => ({
    content:
      TYPES[i % 3] === 'ADDRESS'
        ? `0x${i.toString(16).padStart(40, '0')}`
        : `https://site-${i}.example/${TYPES[i % 3]}`,
    type: TYPES[i % 3],
    name: i % 4 === 0 ? `Alpha ${i}` : `Asset ${i}`,
    description: i % 5 === 0 ? 'mentions ALPHA in the description' : null,
    groupId: groups[Math.floor(i / 3) % 3],
  }));
  // Several requests, so timestamps differ and ties (same millisecond) are exercised too.
  const created: Listed[] = [];
  for (let start = 0; start < assets.length; start += 60) {
    const response = await call(
      createAssets,
      apiEvent({ method: 'POST', apiKey: ACME, body: { assets: assets.slice(start, start + 60) } }),
    );
    created.push(...(response.body as { assets: Listed[] }).assets);
  }
  await call(
    createAssets,
    apiEvent({
      method: 'POST',
      apiKey: GLOBEX,
      body: { assets: [{ content: 'https://globex.example', type: 'URL' }] },
    }),
  );
  const deleted = new Set(created.filter((_, i) => i % 11 === 0).map((asset) => asset.id));
  for (const id of deleted) {
    await call(deleteAsset, apiEvent({ method: 'DELETE', apiKey: ACME, pathParameters: { assetId: String(id) } }));
  }
  live = created
    .filter((asset) => !deleted.has(asset.id))
    .sort((a, b) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1));
});

const matches = (asset: Listed, filters: Record<string, string>) => {
  if (filters.type && asset.type !== filters.type) return false;
  if (filters.groupId === '-1' && asset.group !== null) return false;
  if (filters.groupId && filters.groupId !== '-1' && asset.group?.id !== Number(filters.groupId)) return false;
  if (filters.query) {
    const text = [asset.content, asset.name ?? '', (asset as { description?: string | null }).description ?? '']
      .join('\n')
      .toLowerCase();
    if (!text.includes(filters.query.toLowerCase())) return false;
  }
  return true;
};

describe('GET /organization/assets pagination on DynamoDB Local', () => {
  const combinations: Record<string, string>[] = [];
  for (const type of [undefined, 'URL', 'TWITTER'])
    for (const groupId of [undefined, 'A', '-1'])
      for (const query of [undefined, 'AlPhA']) {
        const filters: Record<string, string> = {};
        if (type) filters.type = type;
        if (groupId) filters.groupId = groupId;
        if (query) filters.query = query;
        combinations.push(filters);
      }

  it.each(combinations)('returns each live asset exactly once, newest first, for filters %o', async (template) => {
    const filters = { ...template, ...(template.groupId === 'A' ? { groupId: String(groupA) } : {}) };

    const seen = await walk(ACME, filters, 7);

    const expected = live.filter((asset) => matches(asset, filters)).map((asset) => asset.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(seen.map((asset) => asset.id)).toEqual(expected);
  });

  it('walks more than 200 live assets with no filter', async () => {
    expect(live.length).toBeGreaterThanOrEqual(200);
    expect((await walk(ACME, {}, 13)).length).toBe(live.length);
  });

  it("never shows another organization's assets", async () => {
    const seen = await walk(GLOBEX, {}, 50);

    expect(seen.map((asset) => asset.content)).toEqual(['https://globex.example']);
  });

  it('rejects an altered cursor with 400', async () => {
    const { next_page } = (await list(ACME, { per_page: '5' })).body as Page;
    const token = next_page as string;
    const altered = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;

    const response = await list(ACME, { per_page: '5', next_page: altered });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(errorBody('BAD_REQUEST', 'Invalid next_page cursor'));
  });

  it("rejects another organization's cursor with 400", async () => {
    const { next_page } = (await list(ACME, { per_page: '5' })).body as Page;

    const response = await list(GLOBEX, { per_page: '5', next_page: next_page as string });

    expect(response.statusCode).toBe(400);
  });

  it('rejects a cursor reused with other filters with 400', async () => {
    const { next_page } = (await list(ACME, { per_page: '5', type: 'URL' })).body as Page;

    const response = await list(ACME, { per_page: '5', type: 'TWITTER', next_page: next_page as string });

    expect(response.statusCode).toBe(400);
  });

  it('returns next_page null on the last page', async () => {
    const response = await list(ACME, { per_page: '1000' });

    expect((response.body as Page).next_page).toBeNull();
    expect((response.body as Page).assets).toHaveLength(live.length);
  });

  it('lower-cases the query in the store: an upper-case query finds what its lower-case form finds', async () => {
    const assets = assetRepository(table.db, table.tableName);

    const upper = await assets.list('acme', { query: 'ALPHA' }, 1000);
    const lower = await assets.list('acme', { query: 'alpha' }, 1000);

    expect(upper.assets.length).toBeGreaterThan(0);
    expect(upper.assets.map((asset) => asset.id)).toEqual(lower.assets.map((asset) => asset.id));
  });

  it.each([
    ['text that is not a position', 'not json'],
    ['a position with a field of another index', JSON.stringify({ PK: 'ASSET#1', liveType: 'ORG#acme#TYPE#URL' })],
  ])('rejects %s with 400', async (_, position) => {
    const assets = assetRepository(table.db, table.tableName);

    await expect(assets.list('acme', {}, 5, position)).rejects.toThrow('Invalid next_page cursor');
  });
});
