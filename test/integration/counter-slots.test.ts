import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createHandler as createGetMetrics } from '../../functions/metrics/get.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { counterPeriods, key } from '../../shared/db/keys.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { cachedKeyResolver } from '../../shared/domain/account/api-keys.ts';
import { mapConcurrently } from '../../shared/domain/core/concurrency.ts';
import { COUNTER_SHARDS, COUNTER_SLOTS, SHARDED_COUNTERS_FLAG } from '../../shared/domain/insights/counters.ts';
import { dimensionCounter } from '../../shared/domain/insights/insight-counters.ts';
import {
  type ActivityChange,
  applyActivity,
  deleteActivity,
  effectsOf,
  parseActivityChange,
  spreadShardOf,
} from '../../shared/domain/lifecycle/activity.ts';
import { apiEvent, call } from '../fixtures/api-event.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('counter-slots');
const metrics = metricsRepository(table.db, table.tableName);
const NOW = Date.parse('2026-03-31T12:00:00.000Z');
const getMetrics = createGetMetrics({
  keys: cachedKeyResolver(apiKeyRepository(table.db, table.tableName)),
  metrics,
  directory: directoryRepository(table.db, table.tableName),
  now: () => NOW,
});
const DAY = '2026-03-02';

const seedOrganization = (slug: string, flagged: boolean) =>
  seed(table.db, table.tableName, {
    organizations: [
      {
        slug,
        name: slug,
        brands: [{ slug: 'wallet', name: 'Wallet' }],
        ...(flagged ? { featureFlags: [SHARDED_COUNTERS_FLAG] } : {}),
      },
    ],
    apiKeys: [{ key: `${slug}-key-0123456789abcdef`, organization: slug }],
  });

const report = (organization: string, i: number, input: Record<string, unknown> = {}): ActivityChange =>
  parseActivityChange({
    organization,
    kind: 'report',
    id: `r-${i}`,
    brands: ['wallet'],
    createdAt: `${DAY}T10:00:00Z`,
    updatedAt: `${DAY}T10:00:00Z`,
    ...input,
  });
const threat = (organization: string, i: number, input: Record<string, unknown> = {}): ActivityChange =>
  parseActivityChange({
    organization,
    kind: 'threat',
    id: `t-${i}`,
    content: `https://${organization}-lure-${i}.example/`,
    assetType: 'URL',
    status: 'BLOCKED',
    brands: ['wallet'],
    createdAt: `${DAY}T11:00:00Z`,
    updatedAt: `${DAY}T11:00:00Z`,
    ...input,
  });

/** Every day item of an organization (every shard's partition, every slot): its sort key and counters. */
const dayItems = async (orgId: string) => {
  const items: Record<string, unknown>[] = [];
  for (let shard = 0; shard < COUNTER_SHARDS; shard++) {
    const { Items = [] } = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': key.orgDay(orgId, DAY, shard).PK },
        ConsistentRead: true,
      }),
    );
    items.push(...Items);
  }
  return items;
};
const sumOf = (items: Record<string, unknown>[], name: string) =>
  items.reduce((sum, item) => sum + ((item[name] as number | undefined) ?? 0), 0);

const metricsOf = async (orgId: string) =>
  (
    await call(
      getMetrics,
      apiEvent({
        path: '/v2/organization/metrics',
        apiKey: `${orgId}-key-0123456789abcdef`,
        query: { startDate: '2026-03-01', endDate: '2026-03-31' },
      }),
    )
  ).body as { metrics: Record<string, number>; blockedByDay: { date: string; count: number }[] };

const reportsByBrand = async (orgId: string) =>
  metrics.sums({ orgId, insights: true }, '2026-03-01', '2026-03-31', { metric: 'reports', dimension: 'brand' });

describe('counter slots of an organization with sharded counters, on DynamoDB Local', () => {
  it('counts concurrent changes of one day exactly once, spread over more items than shards', async () => {
    await seedOrganization('org-busy', true);
    const store = activityRepository(table.db, table.tableName);
    const changes = Array.from({ length: 120 }, (_, i) =>
      i % 2 === 0 ? report('org-busy', i) : threat('org-busy', i),
    );

    const results = await mapConcurrently(changes, 16, (change) => applyActivity(suffixes, store, change));

    expect(results.every((result) => result === 'applied')).toBe(true);
    const items = await dayItems('org-busy');
    expect(new Set(items.map((item) => counterPeriods.of(item.SK as string)))).toEqual(new Set([DAY]));
    expect(items.length).toBeGreaterThan(COUNTER_SHARDS);
    expect(items.length).toBeLessThanOrEqual(COUNTER_SHARDS * COUNTER_SLOTS);
    expect({ reports: sumOf(items, 'reports'), threats: sumOf(items, 'threats_URL') }).toEqual({
      reports: 60,
      threats: 60,
    });
    expect(await metrics.days({ orgId: 'org-busy' }, undefined, '2026-03-31')).toEqual([
      { day: DAY, counters: { reports: 60, threats_URL: 60 } },
    ]);
    expect(await metrics.days({ orgId: 'org-busy', brandSlug: 'wallet' }, undefined, '2026-03-31')).toEqual([
      { day: DAY, counters: { reports: 60, threats_URL: 60 } },
    ]);
    expect(await reportsByBrand('org-busy')).toEqual({ [dimensionCounter('reports', 'brand', 'wallet')]: 60 });
    expect((await metricsOf('org-busy')).metrics).toMatchObject({ reports: 60, newThreats: 60, domainThreats: 60 });
  });

  it('counts a redelivered change once, and a change applied twice at once once', async () => {
    await seedOrganization('org-again', true);
    const store = activityRepository(table.db, table.tableName);
    const first = report('org-again', 1);
    const second = threat('org-again', 2);

    const once = await applyActivity(suffixes, store, first);
    const redelivered = await applyActivity(suffixes, store, first);
    const together = await Promise.all([
      applyActivity(suffixes, store, second),
      applyActivity(suffixes, store, second),
    ]);

    expect([once, redelivered]).toEqual(['applied', 'ignored']);
    expect(together.sort()).toEqual(['applied', 'ignored']);
    const items = await dayItems('org-again');
    expect({ reports: sumOf(items, 'reports'), threats: sumOf(items, 'threats_URL') }).toEqual({
      reports: 1,
      threats: 1,
    });
    expect((await metricsOf('org-again')).metrics).toMatchObject({ reports: 1, newThreats: 1 });
  });

  it('withdraws an update of a record from the item its creation was counted in', async () => {
    await seedOrganization('org-moved', true);
    const store = activityRepository(table.db, table.tableName);
    const ids = Array.from({ length: 40 }, (_, i) => i);
    await mapConcurrently(ids, 8, (i) => applyActivity(suffixes, store, threat('org-moved', i)));

    const withdrawn = await mapConcurrently(ids, 8, (i) =>
      applyActivity(suffixes, store, threat('org-moved', i, { status: 'REJECTED', updatedAt: `${DAY}T12:00:00Z` })),
    );

    expect(withdrawn.every((result) => result === 'applied')).toBe(true);
    const items = await dayItems('org-moved');
    expect(items.length).toBeGreaterThan(COUNTER_SHARDS);
    expect(items.every((item) => item.threats_URL === 0 && item.total === 0)).toBe(true);
    expect(await metrics.hasActivityBefore({ orgId: 'org-moved' }, '2026-03-31')).toBe(false);
  });

  it('sums the counters of records counted before slots with those counted since, and withdraws both', async () => {
    await seedOrganization('org-mixed', false);
    const before = activityRepository(table.db, table.tableName);
    // Counted as earlier versions counted them: unsharded, and sharded by partition alone.
    await mapConcurrently([0, 1, 2, 3, 4, 5], 3, (i) => applyActivity(suffixes, before, report('org-mixed', i)));
    for (const i of [6, 7, 8, 9]) {
      const record = { ...report('org-mixed', i), counterShard: spreadShardOf(`r-${i}`) };
      await before.commit(undefined, record, effectsOf(undefined, record));
    }
    const legacy = (await dayItems('org-mixed')).map((item) => item.SK);
    expect(legacy.every((sk) => sk === `DAY#${DAY}`)).toBe(true);
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.org('org-mixed'),
        UpdateExpression: 'SET featureFlags = :flags',
        ExpressionAttributeValues: { ':flags': [SHARDED_COUNTERS_FLAG] },
      }),
    );
    const after = activityRepository(table.db, table.tableName);

    await mapConcurrently(
      Array.from({ length: 30 }, (_, i) => report('org-mixed', 100 + i)),
      8,
      (change) => applyActivity(suffixes, after, change),
    );

    expect((await dayItems('org-mixed')).length).toBeGreaterThan(legacy.length);
    expect((await metricsOf('org-mixed')).metrics.reports).toBe(40);
    expect(await metrics.days({ orgId: 'org-mixed', brandSlug: 'wallet' }, undefined, '2026-03-31')).toEqual([
      { day: DAY, counters: { reports: 40 } },
    ]);
    expect(await reportsByBrand('org-mixed')).toEqual({ [dimensionCounter('reports', 'brand', 'wallet')]: 40 });

    for (const id of ['r-0', 'r-6', 'r-100']) {
      await deleteActivity(
        suffixes,
        after,
        { organization: 'org-mixed', kind: 'report', id },
        '2026-03-03T00:00:00.000Z',
      );
    }

    expect((await metricsOf('org-mixed')).metrics.reports).toBe(37);
    expect(await reportsByBrand('org-mixed')).toEqual({ [dimensionCounter('reports', 'brand', 'wallet')]: 37 });
    expect((await metricsOf('org-mixed')).blockedByDay).toEqual(
      Array.from({ length: 30 }, (_, i) => ({ date: `2026-03-${String(i + 2).padStart(2, '0')}`, count: 0 })),
    );
  });
});
