import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { changeWriter, verdicts } from '../../shared/db/change-set.ts';
import { EXPORT_INDEX, key } from '../../shared/db/keys.ts';
import { verdictExportRepository } from '../../shared/db/verdict-export-repository.ts';
import type { VerdictDelta } from '../../shared/db/verdict-log.ts';
import type { AssetType } from '../../shared/domain/allowlist/asset-types.ts';
import { cursorCodec } from '../../shared/domain/core/cursor.ts';
import {
  bitsOf,
  EXPORT_STATUSES,
  MAX_PAGE_BYTES,
  statusOf,
  watchStatusOf,
} from '../../shared/domain/verdict-feed/index.ts';
import * as runtime from '../../shared/runtime.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('verdict-export');
// After the table: a function module builds its production dependencies when it loads.
const { createHandler } = await import('../../functions/lookups/list.ts');

/** Every Query of the export, per page: its ScannedCount. */
let queries: number[] = [];
/** The partitions of one type, status and month: its shards and the one of entries indexed before them. */
const PARTITIONS = EXPORT_INDEX.shards + 1;
const counted = {
  send: async (command: Parameters<DynamoDBDocumentClient['send']>[0]) => {
    const output = await table.db.send(command as never);
    const count = (output as { ScannedCount?: number }).ScannedCount;
    if (count !== undefined) queries.push(count);
    return output;
  },
} as unknown as DynamoDBDocumentClient;

const DAY = 86_400_000;
/** The data spans 2026-01-20 to 2026-04-10: four months, changes on both sides of each month's end. */
const BASE = Date.UTC(2026, 0, 20);
const SPAN_DAYS = 80;
const TODAY = '2026-04-12';
const list = createHandler({
  keys: runtime.keys(),
  verdicts: verdictExportRepository(counted, table.tableName),
  cursors: cursorCodec(() => 'export-test-secret'),
  now: () => Date.parse(`${TODAY}T12:00:00Z`),
});
const listPage = (body: Record<string, unknown>) =>
  call(list, apiEvent({ method: 'POST', path: '/v2/asset/list', apiKey: ACME_KEY, body }));

/** Writes deltas through the one write path, stamped at `time`. */
const change = (deltas: VerdictDelta[], time: number) =>
  changeWriter(table.db, table.tableName).commit(() => [verdicts(deltas, { now: () => time })]);

const TYPES: AssetType[] = ['URL', 'ADDRESS', 'TWITTER'];
const KEYS = Array.from({ length: 150 }, (_, i) => ({
  key: `export-${i}.example`,
  type: TYPES[i % TYPES.length] as AssetType,
}));

type Counters = { allow: number; block: number; watch: number };
type Expected = { content: string; type: AssetType; status: string; watchStatus: string; updatedAt: string };

const steps = fc.sample(
  fc.record({
    key: fc.integer({ min: 0, max: KEYS.length - 1 }),
    counter: fc.constantFrom('allow', 'block', 'block', 'watch' as const),
    up: fc.boolean(),
    minutes: fc.integer({ min: 0, max: SPAN_DAYS * 24 * 60 }),
    typed: fc.boolean(),
  }),
  { numRuns: 320, seed: 20_261_123 },
);

/** The independent account: each key's counters and the time of its last change, replayed in time order. */
const oracle = new Map<string, Counters & { type: AssetType; at: number }>();

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
  const ordered = [...steps].sort((a, b) => a.minutes - b.minutes);
  for (const step of ordered) {
    const { key, type } = KEYS[step.key] as (typeof KEYS)[number];
    const state = oracle.get(key) ?? { allow: 0, block: 0, watch: 0, type, at: 0 };
    const delta = step.up || state[step.counter] === 0 ? 1 : -1;
    const time = BASE + step.minutes * 60_000;
    // A key's first change names its type; later ones may leave it to the stored entry.
    const named = step.typed || !oracle.has(key);
    await change([{ checkKey: key, ...(named ? { type } : {}), [step.counter]: delta }], time);
    oracle.set(key, { ...state, [step.counter]: state[step.counter] + delta, at: time });
  }
}, 120_000);

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Versions of one millisecond order by the key's digest. */
const digest = (key: string) => createHash('sha256').update(key).digest('hex');
const expectedFor = (type: AssetType, status: string, from: string, to: string): Expected[] =>
  [...oracle]
    .filter(([, s]) => s.type === type && statusOf(bitsOf(s)) === status && day(s.at) >= from && day(s.at) <= to)
    .sort(([ka, a], [kb, b]) => a.at - b.at || digest(ka).localeCompare(digest(kb)))
    .map(([content, s]) => ({
      content,
      type: s.type,
      status,
      watchStatus: watchStatusOf(bitsOf(s)),
      updatedAt: new Date(s.at).toISOString(),
    }));

type Page = { assets: (Expected & { version: string })[]; next_page: string | null };

/** Pages to the end; each page's reads are recorded. */
const walk = async (filter: Record<string, unknown>, perPage: number) => {
  const pages: { assets: Page['assets']; reads: number[] }[] = [];
  let next: string | null = null;
  do {
    queries = [];
    const response = await listPage({ ...filter, per_page: perPage, ...(next ? { next_page: next } : {}) });
    expect(response.statusCode).toBe(200);
    const page = response.body as Page;
    pages.push({ assets: page.assets, reads: queries });
    next = page.next_page;
  } while (next !== null && pages.length < 500);
  return { pages, next };
};

describe('POST /asset/list on DynamoDB Local', () => {
  it('lists every matching entry exactly once, oldest change first, for random filters walked to the end', async () => {
    const filters = fc.sample(
      fc.record({
        type: fc.constantFrom(...TYPES),
        status: fc.constantFrom(...EXPORT_STATUSES),
        start: fc.integer({ min: -5, max: SPAN_DAYS }),
        length: fc.integer({ min: 0, max: SPAN_DAYS }),
        perPage: fc.constantFrom(1, 2, 3, 7, 100),
      }),
      { numRuns: 30, seed: 20_261_124 },
    );
    for (const f of filters) {
      const from = day(BASE + f.start * DAY);
      const to = day(BASE + (f.start + f.length) * DAY);

      const { pages, next } = await walk({ type: f.type, status: f.status, startDate: from, endDate: to }, f.perPage);

      const listed = pages.flatMap((page) => page.assets);
      expect(next).toBeNull();
      expect(listed.map(({ version: _, ...asset }) => asset)).toEqual(expectedFor(f.type, f.status, from, to));
      for (const page of pages) {
        expect(page.assets.length).toBeLessThanOrEqual(f.perPage);
        // A month is read in its shards side by side: each reads its share of the page and one more.
        expect(page.reads.length).toBeLessThanOrEqual(96);
        expect(page.reads.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(2 * f.perPage + 2 * PARTITIONS);
      }
    }
  }, 120_000);

  it('lists an entry that left the lists as UNKNOWN in the window of its removal, and no longer as BLOCKED', async () => {
    const time = Date.parse('2026-02-10T08:00:00Z');
    await change([{ checkKey: 'export-removed.example', type: 'PAGE', block: 1 }], time);
    await change([{ checkKey: 'export-removed.example', block: -1 }], time + DAY);

    const blocked = await listPage({ type: 'PAGE', startDate: '2026-02-10', endDate: '2026-02-11' });
    const unknown = await listPage({ type: 'PAGE', status: 'UNKNOWN', startDate: '2026-02-11', endDate: '2026-02-11' });

    expect(blocked.body).toEqual({ assets: [], next_page: null });
    expect(unknown.body).toEqual({
      assets: [
        {
          content: 'export-removed.example',
          type: 'PAGE',
          status: 'UNKNOWN',
          watchStatus: 'DISABLED',
          updatedAt: '2026-02-11T08:00:00.000Z',
          version: expect.stringMatching(/^1770796800000-[0-9a-f]{16}-000000000002$/),
        },
      ],
      next_page: null,
    });
  });

  it('returns 400 for a tampered cursor and for a cursor replayed with other filters', async () => {
    const first = await listPage({ type: 'URL', status: 'BLOCKED', startDate: '2026-01-01', per_page: 1 });
    const cursor = (first.body as Page).next_page as string;
    const at = cursor.length - 2;
    const flipped = `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;

    const tampered = await listPage({ type: 'URL', status: 'BLOCKED', startDate: '2026-01-01', next_page: flipped });
    const otherType = await listPage({
      type: 'ADDRESS',
      status: 'BLOCKED',
      startDate: '2026-01-01',
      next_page: cursor,
    });
    const otherDates = await listPage({ type: 'URL', status: 'BLOCKED', startDate: '2026-01-02', next_page: cursor });

    expect(cursor).toEqual(expect.any(String));
    for (const response of [tampered, otherType, otherDates]) {
      expect(response.statusCode).toBe(400);
      expect(response.body).toEqual(errorBody('BAD_REQUEST', 'Invalid next_page cursor'));
    }
  });

  it('bounds a page of 4,096-character entries by size, below the 6 MB response limit, and lists the rest next', async () => {
    const content = (i: number) => `${String(i).padStart(4, '0')}${'x'.repeat(4092)}.example`.slice(0, 4096);
    const time = Date.parse('2026-03-15T00:00:00Z');
    for (let chunk = 0; chunk < 1_300; chunk += 50) {
      const deltas = Array.from({ length: 50 }, (_, i) => ({
        checkKey: content(chunk + i),
        type: 'EMAIL' as const,
        block: 1,
      }));
      await change(deltas, time + chunk);
    }

    queries = [];
    const first = await listPage({ type: 'EMAIL', startDate: '2026-03-15', endDate: '2026-03-15', per_page: 10_000 });
    const firstReads = queries;
    const page = first.body as Page;
    const rest = await walk(
      { type: 'EMAIL', startDate: '2026-03-15', endDate: '2026-03-15', next_page: page.next_page },
      10_000,
    );

    const responseBytes = Buffer.byteLength(JSON.stringify({ statusCode: 200, body: JSON.stringify(first.body) }));
    const all = [...page.assets, ...rest.pages.flatMap((p) => p.assets)].map((asset) => asset.content);
    expect(page.assets.length).toBeGreaterThan(1_000);
    expect(page.assets.length).toBeLessThan(1_300);
    expect(responseBytes).toBeLessThan(MAX_PAGE_BYTES + 10_000);
    expect(responseBytes).toBeLessThan(6 * 1024 * 1024);
    expect(firstReads.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(10_000);
    // Entries stamped in the same millisecond come in the order of their keys' digests.
    expect(all.length).toBe(1_300);
    expect(new Set(all).size === 1_300 && [...all].sort().every((text, i) => text === content(i))).toBe(true);
  }, 120_000);

  it('lists entries written before the index existed once the operator reindexes them, and leaves typeless ones out', async () => {
    const time = Date.parse('2026-02-20T09:00:00Z');
    await change([{ checkKey: 'export-older.example', type: 'DISCORD', block: 1, watch: 1 }], time);
    await change([{ checkKey: 'export-typeless.example', block: 1 }], time);
    // As an entry of a table from before the index: no export partition.
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.checkEntry('export-older.example'),
        UpdateExpression: 'REMOVE exportPK',
      }),
    );
    const before = await listPage({ type: 'DISCORD', startDate: '2026-02-20', endDate: '2026-02-20' });

    const outcome = await runAdminCommand(table.db, table.tableName, ['verdicts', 'reindex'], {});
    const again = await runAdminCommand(table.db, table.tableName, ['verdicts', 'reindex'], {});

    const after = await listPage({ type: 'DISCORD', startDate: '2026-02-20', endDate: '2026-02-20' });
    expect(before.body).toEqual({ assets: [], next_page: null });
    expect([outcome, again]).toEqual([
      JSON.stringify({ indexed: 1, changedMeanwhile: 0 }),
      JSON.stringify({ indexed: 0, changedMeanwhile: 0 }),
    ]);
    expect(after.body).toEqual({
      assets: [
        {
          content: 'export-older.example',
          type: 'DISCORD',
          status: 'BLOCKED',
          watchStatus: 'ENABLED',
          updatedAt: '2026-02-20T09:00:00.000Z',
          version: expect.stringMatching(/^1771578000000-[0-9a-f]{16}-000000000001$/),
        },
      ],
      next_page: null,
    });
  });
});
