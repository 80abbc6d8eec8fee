import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { COUNTER_SHARDS } from '../domain/insights/counters.ts';
import { gaugeSlot } from '../domain/insights/insight-counters.ts';
import type { OpenWorkStore } from '../domain/insights/insights.ts';
import type { DayCounters } from '../domain/insights/metrics.ts';
import { queryPages } from './batch.ts';
import { counterPeriods, key } from './keys.ts';

const SHARDS = [...Array(COUNTER_SHARDS).keys()];

/**
 * The open-work gauges of an organization by the day they were counted on (days with a count), from
 * its gauge items: one Query per shard, one item per month and shard of at most 31 slots per gauge,
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
    const byDay = new Map<string, Record<string, number>>();
    for (const item of (await Promise.all(SHARDS.map(shard))).flat()) {
      const month = counterPeriods.of(item.SK as string);
      for (const [attribute, value] of Object.entries(item)) {
        const slot = gaugeSlot(attribute);
        if (slot === undefined || typeof value !== 'number' || value === 0 || !wanted.has(slot.gauge)) continue;
        const day = `${month}-${slot.dayOfMonth}`;
        const counters = byDay.get(day) ?? {};
        counters[slot.gauge] = (counters[slot.gauge] ?? 0) + value;
        byDay.set(day, counters);
      }
    }
    return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, counters]): DayCounters => ({ day, counters }));
  },
});
