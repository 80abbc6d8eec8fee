import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TOTAL } from '../domain/counters.ts';
import type { DayCounters, MetricsScope, MetricsStore } from '../domain/metrics.ts';
import { queryPages } from './batch.ts';
import { type Key, key } from './keys.ts';

/** Day items a probe for earlier activity reads per page; all-zero days are rare (only deletions leave them). */
const PROBE_PAGE = 32;

const dayKey = ({ orgId, brandSlug }: MetricsScope, day: string): Key =>
  brandSlug === undefined ? key.orgDay(orgId, day) : key.brandDay(orgId, brandSlug, day);

const toDay = (scope: MetricsScope, item: Record<string, unknown>): DayCounters => {
  const counters: Record<string, number> = {};
  for (const [name, value] of Object.entries(item)) {
    if (typeof value === 'number' && name !== TOTAL) counters[name] = value;
  }
  return { day: (item.SK as string).slice(dayKey(scope, '').SK.length), counters };
};

export const metricsRepository = (db: DynamoDBDocumentClient, table: string): MetricsStore => ({
  async days(scope, from, to) {
    const days: DayCounters[] = [];
    for await (const items of queryPages(db, {
      TableName: table,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': dayKey(scope, to).PK,
        ':from': dayKey(scope, from ?? '').SK,
        ':to': dayKey(scope, to).SK,
      },
    })) {
      days.push(...items.map((item) => toDay(scope, item)));
    }
    return days;
  },

  async hasActivityBefore(scope, day) {
    const pages = queryPages(db, {
      TableName: table,
      KeyConditionExpression: 'PK = :pk AND SK < :day',
      FilterExpression: '#total > :zero',
      ProjectionExpression: 'SK',
      ExpressionAttributeNames: { '#total': TOTAL },
      ExpressionAttributeValues: { ':pk': dayKey(scope, day).PK, ':day': dayKey(scope, day).SK, ':zero': 0 },
      ScanIndexForward: false,
      Limit: PROBE_PAGE,
    });
    for await (const items of pages) if (items.length > 0) return true;
    return false;
  },
});
