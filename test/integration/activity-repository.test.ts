import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { COUNTER_SHARDS } from '../../shared/domain/insights/counters.ts';
import {
  type ActivityRecord,
  applyActivities,
  deleteActivity,
  effectsOf,
  parseActivityChange,
  spreadShardOf,
  updateActivity,
} from '../../shared/domain/lifecycle/activity.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('activity-repository');
const store = activityRepository(table.db, table.tableName);
const metrics = metricsRepository(table.db, table.tableName);

/** One threat per test, each of its own organization and content, so tests share no item. */
const threatOf = (orgId: string, input: Record<string, unknown> = {}) =>
  parseActivityChange({
    organization: orgId,
    kind: 'threat',
    id: 't-1',
    content: `${orgId}-airdrop.xyz`,
    assetType: 'URL',
    status: 'BLOCKED',
    brands: ['wallet'],
    createdAt: '2026-03-01T10:00:00Z',
    ...input,
  });
/** The counter shard threat `t-1` of an organization with sharded counters gets: not 0, so not the unsharded partition. */
const SHARD = spreadShardOf('t-1');
/** A new threat as the write of an organization with sharded counters carries it: with its shard. */
const blockedThreat = (orgId: string): ActivityRecord => ({
  ...threatOf(orgId),
  checkKey: `${orgId}-airdrop.xyz`,
  counterShard: SHARD,
});
const rejectedThreat = (orgId: string): ActivityRecord =>
  threatOf(orgId, { status: 'REJECTED', updatedAt: '2026-03-02T00:00:00Z' });

const read = async (itemKey: { PK: string; SK: string }) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: itemKey, ConsistentRead: true }))).Item;
/** The counters of an item, without its keys or anything else. */
const counters = async (itemKey: { PK: string; SK: string }, names: string[]) => {
  const item = (await read(itemKey)) ?? {};
  return Object.fromEntries(names.map((name) => [name, item[name] ?? 0]));
};
/** What a threat of `orgId` moved: its day counters in the organization and its brand, and its check-index entry. */
const moved = async (orgId: string) => ({
  organization: await counters(key.orgDay(orgId, '2026-03-01', SHARD), ['threats_URL', 'total']),
  brand: await counters(key.brandDay(orgId, 'wallet', '2026-03-01', SHARD), ['threats_URL', 'total']),
  check: await counters(key.checkEntry(`${orgId}-airdrop.xyz`), ['allow', 'block', 'watch']),
});
const NONE_MOVED = {
  organization: { threats_URL: 0, total: 0 },
  brand: { threats_URL: 0, total: 0 },
  check: { allow: 0, block: 0, watch: 0 },
};

describe('activityRepository.commit on DynamoDB Local', () => {
  it('stores a new record and moves its organization and brand day counters and its check-index entry', async () => {
    const threat = blockedThreat('org-new');

    const committed = await store.commit(undefined, threat, effectsOf(undefined, threat));

    expect(committed).toBe(true);
    expect(await store.find(threat)).toEqual({
      ...threat,
      counterShard: SHARD,
      insightItemsCounted: true,
      insightMonthsCounted: 3,
    });
    expect(await moved('org-new')).toEqual({
      organization: { threats_URL: 1, total: 1 },
      brand: { threats_URL: 1, total: 1 },
      check: { allow: 0, block: 1, watch: 0 },
    });
  });

  it('moves the counters back when the record leaves a counted status', async () => {
    const threat = blockedThreat('org-withdrawn');
    await store.commit(undefined, threat, effectsOf(undefined, threat));
    const stored = await store.find(threat);
    const withdrawn = rejectedThreat('org-withdrawn');

    const committed = await store.commit(stored, withdrawn, effectsOf(stored, withdrawn));

    expect(committed).toBe(true);
    expect(await moved('org-withdrawn')).toEqual(NONE_MOVED);
  });

  it('writes nothing and reports false when the stored record is not the version the change was computed from', async () => {
    const threat = blockedThreat('org-stale');
    await store.commit(undefined, threat, effectsOf(undefined, threat));
    const stale = { ...threat, updatedAt: '2026-02-28T00:00:00.000Z' };
    const withdrawn = rejectedThreat('org-stale');

    const committed = await store.commit(stale, withdrawn, effectsOf(stale, withdrawn));

    expect(committed).toBe(false);
    expect(await store.find(threat)).toEqual({
      ...threat,
      counterShard: SHARD,
      insightItemsCounted: true,
      insightMonthsCounted: 3,
    });
    expect((await moved('org-stale')).check).toEqual({ allow: 0, block: 1, watch: 0 });
  });

  it('refuses, writing nothing, a change whose decrement would take a day counter below zero', async () => {
    const threat = blockedThreat('org-disagree');
    // Another threat blocks the same content on another day, so only the day counters are missing.
    const other = {
      ...threatOf('org-disagree', { id: 't-2', createdAt: '2026-03-05T10:00:00Z' }),
      checkKey: threat.checkKey,
    };
    await store.commit(undefined, other, effectsOf(undefined, other));
    // A record stored without its counters: the records and the counters disagree.
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...key.activity('org-disagree', 'threat', 't-1'), entity: 'ACTIVITY', ...threat },
      }),
    );
    const withdrawn = rejectedThreat('org-disagree');

    const commit = store.commit(threat, withdrawn, effectsOf(threat, withdrawn));

    await expect(commit).rejects.toThrow('Applying this change would take a counter below zero');
    expect(await store.find(threat)).toEqual(threat);
    expect(await moved('org-disagree')).toEqual({ ...NONE_MOVED, check: { allow: 0, block: 1, watch: 0 } });
  });
});

/** Every day item of a scope, by shard: `{ 3: ['2026-03-01'] }`. */
const shardsHolding = async (orgId: string, brandSlug?: string) => {
  const held: Record<number, string[]> = {};
  for (let shard = 0; shard < COUNTER_SHARDS; shard++) {
    const partition =
      brandSlug === undefined ? key.orgDay(orgId, '', shard).PK : key.brandDay(orgId, brandSlug, '', shard).PK;
    const { Items = [] } = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ConsistentRead: true,
      }),
    );
    if (Items.length > 0) held[shard] = Items.map((item) => `${(item.SK as string).slice(4)} total=${item.total}`);
  }
  return held;
};

/** The counters of each day item (the insight counters live in items of their own, so none are here). */
const days = async (orgId: string, brandSlug?: string) =>
  (await metrics.days(brandSlug === undefined ? { orgId } : { orgId, brandSlug }, undefined, '2026-12-31')).map(
    ({ day, counters }) => ({ day, ...counters }),
  );

describe('day counters in shards, on DynamoDB Local', () => {
  it('counts an organization in shard 0 alone unless it is flagged for sharded counters', async () => {
    await seed(table.db, table.tableName, {
      organizations: [
        { slug: 'org-quiet', name: 'Quiet', brands: [{ slug: 'wallet', name: 'Wallet' }] },
        {
          slug: 'org-busy',
          name: 'Busy',
          featureFlags: ['sharded-counters'],
          brands: [{ slug: 'wallet', name: 'Wallet' }],
        },
      ],
    });
    const reportsOf = (organization: string) =>
      Array.from({ length: 40 }, (_, i) => ({
        organization,
        kind: 'report' as const,
        id: `r-${i}`,
        brands: ['wallet'],
        createdAt: '2026-03-01T10:00:00Z',
        updatedAt: '2026-03-01T10:00:00Z',
        deleted: false,
      }));

    await applyActivities(suffixes, store, [...reportsOf('org-quiet'), ...reportsOf('org-busy')]);

    expect(Object.keys(await shardsHolding('org-quiet'))).toEqual(['0']);
    expect(Object.keys(await shardsHolding('org-quiet', 'wallet'))).toEqual(['0']);
    expect(Object.keys(await shardsHolding('org-busy')).length).toBeGreaterThan(1);
    expect(Object.keys(await shardsHolding('org-busy', 'wallet')).length).toBeGreaterThan(1);
    for (const orgId of ['org-quiet', 'org-busy']) {
      expect(await days(orgId)).toEqual([{ day: '2026-03-01', reports: 40 }]);
      expect(await days(orgId, 'wallet')).toEqual([{ day: '2026-03-01', reports: 40 }]);
    }
  });

  it('spreads the records of one organization over its counter shards and sums them back per day', async () => {
    const reports = Array.from({ length: 50 }, (_, i) => ({
      ...parseActivityChange({
        organization: 'org-spread',
        kind: 'report',
        id: `r-${i}`,
        brands: ['wallet'],
        createdAt: '2026-03-01T10:00:00Z',
      }),
      counterShard: spreadShardOf(`r-${i}`),
    }));

    for (const report of reports) await store.commit(undefined, report, effectsOf(undefined, report));

    expect(Object.keys(await shardsHolding('org-spread')).length).toBeGreaterThan(1);
    expect(Object.keys(await shardsHolding('org-spread', 'wallet')).length).toBeGreaterThan(1);
    expect(await days('org-spread')).toEqual([{ day: '2026-03-01', reports: 50 }]);
    expect(await days('org-spread', 'wallet')).toEqual([{ day: '2026-03-01', reports: 50 }]);
    expect(await metrics.hasActivityBefore({ orgId: 'org-spread' }, '2026-03-02')).toBe(true);
    expect(await metrics.hasActivityBefore({ orgId: 'org-spread' }, '2026-03-01')).toBe(false);
  });

  it("withdraws a record's update and its deletion from the shard it was counted in", async () => {
    await seed(table.db, table.tableName, {
      organizations: [{ slug: 'org-own', name: 'Own', brands: [{ slug: 'wallet', name: 'Wallet' }] }],
    });
    const threat = blockedThreat('org-own');
    await store.commit(undefined, threat, effectsOf(undefined, threat));
    const ref = { organization: 'org-own', kind: 'threat', id: 't-1' } as const;

    await updateActivity(suffixes, store, ref, { createdAt: '2026-03-02T10:00:00Z' }, '2026-03-03T00:00:00.000Z');

    expect(await shardsHolding('org-own')).toEqual({ [SHARD]: ['2026-03-01 total=0', '2026-03-02 total=1'] });
    expect(await days('org-own', 'wallet')).toEqual([
      { day: '2026-03-01', threats_URL: 0 },
      { day: '2026-03-02', threats_URL: 1 },
    ]);

    await deleteActivity(suffixes, store, ref, '2026-03-04T00:00:00.000Z');

    expect(await shardsHolding('org-own')).toEqual({ [SHARD]: ['2026-03-01 total=0', '2026-03-02 total=0'] });
    expect(await shardsHolding('org-own', 'wallet')).toEqual({
      [SHARD]: ['2026-03-01 total=0', '2026-03-02 total=0'],
    });
    expect((await store.find(ref))?.counterShard).toBe(SHARD);
  });

  it('keeps a record stored before counters were sharded in the unsharded day items, exactly', async () => {
    await seed(table.db, table.tableName, {
      organizations: [{ slug: 'org-legacy', name: 'Legacy', brands: [{ slug: 'wallet', name: 'Wallet' }] }],
    });
    const report = parseActivityChange({
      organization: 'org-legacy',
      kind: 'report',
      id: 'r-legacy',
      brands: ['wallet'],
      createdAt: '2026-03-01T10:00:00Z',
    });
    const counted = { reports: 1, total: 1 };
    // The layout before sharding: the record without `counterShard`, counted in the unsharded day items.
    for (const Item of [
      { ...key.activity('org-legacy', 'report', 'r-legacy'), entity: 'ACTIVITY', ...report },
      { ...key.orgDay('org-legacy', '2026-03-01'), ...counted },
      { ...key.brandDay('org-legacy', 'wallet', '2026-03-01'), ...counted },
    ]) {
      await table.db.send(new PutCommand({ TableName: table.tableName, Item }));
    }
    const ref = { organization: 'org-legacy', kind: 'report', id: 'r-legacy' } as const;

    await updateActivity(suffixes, store, ref, { createdAt: '2026-03-02T10:00:00Z' }, '2026-03-03T00:00:00.000Z');

    expect(await shardsHolding('org-legacy')).toEqual({ 0: ['2026-03-01 total=0', '2026-03-02 total=1'] });
    expect(await shardsHolding('org-legacy', 'wallet')).toEqual({ 0: ['2026-03-01 total=0', '2026-03-02 total=1'] });
    expect(await days('org-legacy')).toEqual([
      { day: '2026-03-01', reports: 0 },
      { day: '2026-03-02', reports: 1 },
    ]);
    expect((await store.find(ref))?.counterShard).toBe(0);

    await deleteActivity(suffixes, store, ref, '2026-03-04T00:00:00.000Z');

    expect(await shardsHolding('org-legacy')).toEqual({ 0: ['2026-03-01 total=0', '2026-03-02 total=0'] });
    expect(await shardsHolding('org-legacy', 'wallet')).toEqual({ 0: ['2026-03-01 total=0', '2026-03-02 total=0'] });
  });
});
