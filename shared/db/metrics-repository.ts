import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { COUNTER_SHARDS, TOTAL } from '../domain/counters.ts';
import type { DayCounters, MetricsScope, MetricsStore } from '../domain/metrics.ts';
import { queryPages } from './batch.ts';
import { type Key, key } from './keys.ts';

/** Day items a probe for earlier activity reads per page; all-zero days are rare (only deletions leave them). */
const PROBE_PAGE = 32;

const SHARDS = [...Array(COUNTER_SHARDS).keys()];

const dayKey = ({ orgId, brandSlug, insights }: MetricsScope, day: string, shard: number): Key => {
  if (insights) return key.insightDay(orgId, day, shard);
  return brandSlug === undefined ? key.orgDay(orgId, day, shard) : key.brandDay(orgId, brandSlug, day, shard);
};

/** One shard's day items of the range, ascending. */
const shardDays = async (
  db: DynamoDBDocumentClient,
  table: string,
  scope: MetricsScope,
  shard: number,
  from: string | undefined,
  to: string,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(db, {
    TableName: table,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': dayKey(scope, to, shard).PK,
      ':from': dayKey(scope, from ?? '', shard).SK,
      ':to': dayKey(scope, to, shard).SK,
    },
  })) {
    items.push(...page);
  }
  return items;
};

export const metricsRepository = (db: DynamoDBDocumentClient, table: string): MetricsStore => ({
  /** A day's counters are the sums of its items in every shard. */
  async days(scope, from, to) {
    const shards = await Promise.all(SHARDS.map((shard) => shardDays(db, table, scope, shard, from, to)));
    const prefix = dayKey(scope, '', 0).SK.length;
    const byDay = new Map<string, Record<string, number>>();
    for (const item of shards.flat()) {
      const day = (item.SK as string).slice(prefix);
      const counters = byDay.get(day) ?? {};
      for (const [name, value] of Object.entries(item)) {
        if (typeof value === 'number' && name !== TOTAL) counters[name] = (counters[name] ?? 0) + value;
      }
      byDay.set(day, counters);
    }
    return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, counters]): DayCounters => ({ day, counters }));
  },

  /** Counters never go below zero, so a day is active when any of its shards has a positive total. */
  async hasActivityBefore(scope, day) {
    const probe = async (shard: number) => {
      const pages = queryPages(db, {
        TableName: table,
        KeyConditionExpression: 'PK = :pk AND SK < :day',
        FilterExpression: '#total > :zero',
        ProjectionExpression: 'SK',
        ExpressionAttributeNames: { '#total': TOTAL },
        ExpressionAttributeValues: {
          ':pk': dayKey(scope, day, shard).PK,
          ':day': dayKey(scope, day, shard).SK,
          ':zero': 0,
        },
        ScanIndexForward: false,
        Limit: PROBE_PAGE,
      });
      for await (const items of pages) if (items.length > 0) return true;
      return false;
    };
    return (await Promise.all(SHARDS.map(probe))).some(Boolean);
  },
});
