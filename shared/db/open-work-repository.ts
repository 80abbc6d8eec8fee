import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { COUNTER_SHARDS } from '../domain/counters.ts';
import { GAUGE_ON_DAY } from '../domain/insight-counters.ts';
import type { OpenWorkStore } from '../domain/insights.ts';
import type { DayCounters } from '../domain/metrics.ts';
import { queryPages } from './batch.ts';
import { key } from './keys.ts';

const SHARDS = [...Array(COUNTER_SHARDS).keys()];

/**
 * The open-work gauges of an organization by the day they were counted on, from its gauge items:
 * one Query per shard, one small item per month and shard (a few gauges per day of the month),
 * whatever the number of records.
 */
export const openWorkRepository = (db: DynamoDBDocumentClient, table: string): OpenWorkStore => ({
  async days(orgId, names) {
    const wanted = new Set(names);
    const shard = async (index: number) => {
      const items: Record<string, unknown>[] = [];
      for await (const page of queryPages(db, {
        TableName: table,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': key.insightGauges(orgId, '', index).PK },
      })) {
        items.push(...page);
      }
      return items;
    };
    const prefix = key.insightGauges(orgId, '', 0).SK.length;
    const byDay = new Map<string, Record<string, number>>();
    for (const item of (await Promise.all(SHARDS.map(shard))).flat()) {
      const month = (item.SK as string).slice(prefix);
      for (const [attribute, value] of Object.entries(item)) {
        const gauge = GAUGE_ON_DAY.exec(attribute);
        if (gauge === null || typeof value !== 'number' || !wanted.has(gauge[1] as string)) continue;
        const day = `${month}-${gauge[2]}`;
        const counters = byDay.get(day) ?? {};
        counters[gauge[1] as string] = (counters[gauge[1] as string] ?? 0) + value;
        byDay.set(day, counters);
      }
    }
    return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, counters]): DayCounters => ({ day, counters }));
  },
});
