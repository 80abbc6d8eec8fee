import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { lifecycleRepository } from '../../shared/db/lifecycle-repository.ts';
import type { AssetType } from '../../shared/domain/allowlist/asset-types.ts';
import { cursorCodec } from '../../shared/domain/core/cursor.ts';
import {
  type ActivityChange,
  applyActivity,
  LIVENESS_STATUSES,
  TAKEDOWN_STATUSES,
} from '../../shared/domain/lifecycle/activity.ts';
import { listReports, listTakedowns, listThreats } from '../../shared/domain/lifecycle/views.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('lifecycle-lists');
/** Every Query's ScannedCount, to hold each page to its read budget. */
const scanned: number[] = [];
const counted = {
  send: async (command: Parameters<DynamoDBDocumentClient['send']>[0]) => {
    const output = await table.db.send(command as never);
    const count = (output as { ScannedCount?: number }).ScannedCount;
    if (count !== undefined) scanned.push(count);
    return output;
  },
} as unknown as DynamoDBDocumentClient;
const lists = lifecycleRepository(counted, table.tableName);
const activity = activityRepository(table.db, table.tableName);
const cursors = cursorCodec(() => 'lists-test-secret');
const directory = { listBrands: async () => [] };

const TYPES: AssetType[] = ['URL', 'PAGE', 'TWITTER', 'ADDRESS'];
const WORDS = ['alpha', 'beta', 'gamma', 'delta'];
const DAY = 86_400_000;
const BASE = Date.UTC(2026, 2, 1);
const TODAY = '2026-03-20';
const at = (minutes: number) => new Date(BASE + minutes * 60_000).toISOString();
const day = (offset: number) => new Date(BASE + offset * DAY).toISOString().slice(0, 10);
/** The read budget of one page: at most 4 Query calls, each reading at most what is missing from the page. */
const BUDGET = 4;

const generated = fc.sample(
  fc.record({
    minutes: fc.integer({ min: 0, max: 18 * 24 * 60 }),
    type: fc.constantFrom(...TYPES),
    word: fc.constantFrom(...WORDS),
    status: fc.constantFrom('PENDING', 'BLOCKED', 'APPROVED', 'REJECTED' as const),
    takedown: fc.constantFrom(...TAKEDOWN_STATUSES),
    liveness: fc.constantFrom(undefined, ...LIVENESS_STATUSES),
    pending: fc.boolean(),
    rejected: fc.boolean(),
    organization: fc.constantFrom('acme', 'acme', 'acme', 'globex'),
  }),
  { numRuns: 150, seed: 20_261_123 },
);

const records: ActivityChange[] = generated.flatMap((g, i) => {
  const id = String(1_000 + i);
  const base = { organization: g.organization, id, brands: [], createdAt: at(g.minutes), deleted: false };
  const content = `https://${g.word}-${i}.example/${g.word.toUpperCase()}`;
  const proposals = [
    ...(g.pending ? [{ id: 1, assetId: 1, content, type: g.type, reviewStatus: 'PENDING' as const }] : []),
    ...(g.rejected ? [{ id: 2, assetId: 2, content, type: g.type, reviewStatus: 'REJECTED' as const }] : []),
  ];
  return [
    { ...base, kind: 'report', updatedAt: at(g.minutes), title: `Report ${i}`, description: '', proposals },
    {
      ...base,
      kind: 'threat',
      updatedAt: at(g.minutes + 30),
      content,
      assetType: g.type,
      status: g.status,
      watchlisted: false,
    },
    {
      ...base,
      kind: 'takedown',
      updatedAt: at(g.minutes + 90),
      status: g.takedown,
      content,
      assetType: g.type,
      ...(g.liveness === undefined ? {} : { livenessStatus: g.liveness }),
    },
  ] as ActivityChange[];
});

await seed(table.db, table.tableName, {
  organizations: [
    { slug: 'acme', name: 'Acme' },
    { slug: 'globex', name: 'Globex' },
  ],
});
for (const record of records) await applyActivity(suffixes, activity, record);

/** Walks every page, holding each to its read budget; returns what the pages held, in order. */
const walk = async <T>(perPage: number, read: (cursor?: string) => Promise<{ items: T[]; next: string | null }>) => {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    scanned.length = 0;
    const page = await read(cursor);
    expect(page.items.length).toBeLessThanOrEqual(perPage);
    expect(scanned.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(BUDGET * perPage);
    items.push(...page.items);
    if (page.next === null) return items;
    cursor = page.next;
  }
  throw new Error('the listing did not end');
};

const idSort = (id: string) => id.padStart(16, '0');
const acme = (kind: ActivityChange['kind']) => records.filter((r) => r.organization === 'acme' && r.kind === kind);

describe('lifecycle listings on DynamoDB Local', () => {
  it('return every matching threat exactly once in the documented order, for random filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          key: fc.constantFrom('id', 'blockedAt', 'content', 'type' as const),
          direction: fc.constantFrom('asc', 'desc' as const),
          types: fc.subarray(TYPES),
          word: fc.option(fc.constantFrom(...WORDS, 'ALPHA', 'nothing'), { nil: undefined }),
          start: fc.integer({ min: 0, max: 19 }),
          length: fc.integer({ min: 0, max: 19 }),
          perPage: fc.integer({ min: 1, max: 12 }),
        }),
        async ({ key, direction, types, word, start, length, perPage }) => {
          const startDate = day(start);
          const endDate = day(start + length);
          const query = { startDate, endDate, assetType: types, sorting: [{ key, direction }], limit: perPage };
          const listed = await walk(perPage, async (cursor) => {
            const page = await listThreats(
              lists,
              cursors,
              'acme',
              { ...query, ...(word ? { query: word } : {}), ...(cursor ? { cursor } : {}) },
              TODAY,
            );
            return { items: page.threats, next: page.next_page };
          });

          const sortOf = (r: ActivityChange & { kind: 'threat' }) =>
            ({
              id: idSort(r.id),
              blockedAt: `${r.updatedAt}#${idSort(r.id)}`,
              content: `${r.content.toLowerCase()}\u0000${idSort(r.id)}`,
              type: `${r.assetType}#${idSort(r.id)}`,
            })[key];
          const expected = (acme('threat') as (ActivityChange & { kind: 'threat' })[])
            .filter((r) => ['BLOCKED', 'APPROVED'].includes(r.status))
            .filter((r) => r.updatedAt >= `${startDate}T00:00:00.000Z` && r.updatedAt <= `${endDate}T23:59:59.999Z`)
            .filter((r) => types.length === 0 || types.includes(r.assetType))
            .filter((r) => word === undefined || r.content.toLowerCase().includes(word.toLowerCase()))
            .sort((a, b) => (sortOf(a) < sortOf(b) ? -1 : 1));
          if (direction === 'desc') expected.reverse();
          expect(listed.map((t) => t.id)).toEqual(expected.map((r) => Number(r.id)));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('return every matching report exactly once, newest first, for random filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          needsCustomerReview: fc.boolean(),
          onlyRejected: fc.boolean(),
          start: fc.option(fc.integer({ min: 0, max: 19 }), { nil: undefined }),
          end: fc.option(fc.integer({ min: 0, max: 19 }), { nil: undefined }),
          perPage: fc.integer({ min: 1, max: 12 }),
        }),
        async ({ needsCustomerReview, onlyRejected, start, end, perPage }) => {
          const startDate = start === undefined ? undefined : day(start);
          const endDate = end === undefined ? undefined : day(Math.max(end, start ?? 0));
          const listed = await walk(perPage, async (cursor) => {
            const page = await listReports(lists, cursors, 'acme', {
              needsCustomerReview,
              onlyRejected,
              ...(startDate ? { startDate } : {}),
              ...(endDate ? { endDate } : {}),
              limit: perPage,
              ...(cursor ? { cursor } : {}),
            });
            return { items: page.reports, next: page.nextCursor };
          });

          const expected = (acme('report') as (ActivityChange & { kind: 'report' })[])
            .filter((r) => !needsCustomerReview || r.proposals?.some((p) => p.reviewStatus === 'PENDING'))
            .filter((r) => !onlyRejected || r.proposals?.some((p) => p.reviewStatus === 'REJECTED'))
            .filter((r) => startDate === undefined || r.createdAt.slice(0, 10) >= startDate)
            .filter((r) => endDate === undefined || r.createdAt.slice(0, 10) <= endDate)
            .sort((a, b) => (`${a.createdAt}#${idSort(a.id)}` < `${b.createdAt}#${idSort(b.id)}` ? 1 : -1));
          expect(listed.map((r) => r.id)).toEqual(expected.map((r) => Number(r.id)));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('return every matching takedown exactly once in the documented order, for random filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          key: fc.constantFrom('updatedAt', 'createdAt' as const),
          direction: fc.constantFrom('asc', 'desc' as const),
          statuses: fc.subarray([...TAKEDOWN_STATUSES]),
          liveness: fc.subarray([...LIVENESS_STATUSES]),
          types: fc.subarray(TYPES),
          start: fc.option(fc.integer({ min: 0, max: 19 }), { nil: undefined }),
          perPage: fc.integer({ min: 1, max: 12 }),
        }),
        async ({ key, direction, statuses, liveness, types, start, perPage }) => {
          const startDate = start === undefined ? undefined : day(start);
          const listed = await walk(perPage, async (cursor) => {
            const page = await listTakedowns({ lists, directory }, cursors, 'acme', {
              sorting: [{ key, direction }],
              takedownStatus: statuses,
              livenessStatus: liveness,
              assetType: types,
              ...(startDate ? { startDate } : {}),
              limit: perPage,
              ...(cursor ? { cursor } : {}),
            });
            return { items: page.takedowns, next: page.next_page };
          });

          const expected = (acme('takedown') as (ActivityChange & { kind: 'takedown' })[])
            .filter((r) => statuses.length === 0 || statuses.includes(r.status))
            .filter((r) => liveness.length === 0 || liveness.includes(r.livenessStatus ?? 'UNKNOWN'))
            .filter((r) => types.length === 0 || (r.assetType !== undefined && types.includes(r.assetType)))
            .filter((r) => startDate === undefined || r.updatedAt >= `${startDate}T00:00:00.000Z`)
            .sort((a, b) => (`${a[key]}#${idSort(a.id)}` < `${b[key]}#${idSort(b.id)}` ? -1 : 1));
          if (direction === 'desc') expected.reverse();
          expect(listed.map((t) => t.id)).toEqual(expected.map((r) => Number(r.id)));
        },
      ),
      { numRuns: 25 },
    );
  });
});
