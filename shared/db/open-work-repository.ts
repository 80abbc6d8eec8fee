import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { COUNTER_SHARDS } from '../domain/counters.ts';
import type { OpenWorkStore } from '../domain/insights.ts';
import type { DayCounters } from '../domain/metrics.ts';
import { queryPages } from './batch.ts';
import { key } from './keys.ts';

const SHARDS = [...Array(COUNTER_SHARDS).keys()];

/**
 * The open-work gauges of every insight day item of an organization, each shard's partition read
 * whole but only the named counters returned (the items also hold the breakdowns and histograms).
 */
export const openWorkRepository = (db: DynamoDBDocumentClient, table: string): OpenWorkStore => ({
  async days(orgId, names) {
    const attributes = Object.fromEntries(names.map((name, i) => [`#c${i}`, name]));
    const shard = async (index: number) => {
      const items: Record<string, unknown>[] = [];
      for await (const page of queryPages(db, {
        TableName: table,
        KeyConditionExpression: 'PK = :pk',
        ProjectionExpression: ['SK', ...Object.keys(attributes)].join(', '),
        ExpressionAttributeNames: attributes,
        ExpressionAttributeValues: { ':pk': key.insightDay(orgId, '', index).PK },
      })) {
        items.push(...page);
      }
      return items;
    };
    const prefix = key.insightDay(orgId, '', 0).SK.length;
    const byDay = new Map<string, Record<string, number>>();
    for (const item of (await Promise.all(SHARDS.map(shard))).flat()) {
      const day = (item.SK as string).slice(prefix);
      const counters = byDay.get(day) ?? {};
      for (const name of names) {
        const value = item[name];
        if (typeof value === 'number') counters[name] = (counters[name] ?? 0) + value;
      }
      byDay.set(day, counters);
    }
    return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, counters]): DayCounters => ({ day, counters }));
  },
});
