import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { nextDay } from '../domain/core/dates.ts';
import { COUNTER_SHARDS, TOTAL } from '../domain/insights/counters.ts';
import {
  type BreakdownMetric,
  breakdownKeysAttribute,
  bucketCountersOf,
  DAY_UNITS_PREFIX,
  type Dimension,
  dayUnitsCounter,
  dimensionCounter,
  EMPTY_WINDOW,
  groupCounters,
  groupCountsOf,
  type HistogramRef,
  histogramItem,
  isLegacyGaugeOnDay,
  type MedianWindow,
  medianGroup,
} from '../domain/insights/insight-counters.ts';
import type { DayCounters, MetricsScope, MetricsStore } from '../domain/insights/metrics.ts';
import { queryPages } from './batch.ts';
import { counterPeriods, type Key, key } from './keys.ts';

/** Day items a probe for earlier activity reads per page; all-zero days are rare (only deletions leave them). */
const PROBE_PAGE = 32;

const SHARDS = [...Array(COUNTER_SHARDS).keys()];

const dayKey = ({ orgId, brandSlug, insights }: MetricsScope, day: string, shard: number): Key => {
  if (insights) return key.insightDay(orgId, day, shard);
  return brandSlug === undefined ? key.orgDay(orgId, day, shard) : key.brandDay(orgId, brandSlug, day, shard);
};

/** One shard's day items of the range, every slot of each day, ascending. */
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
      ':to': counterPeriods.through(dayKey(scope, to, shard)),
    },
  })) {
    items.push(...page);
  }
  return items;
};

type Counters = Record<string, number>;
const addInto = (sums: Counters, item: Record<string, unknown>, skip: (name: string) => boolean) => {
  for (const [name, value] of Object.entries(item)) {
    if (typeof value === 'number' && !skip(name)) sums[name] = (sums[name] ?? 0) + value;
  }
};
/** A month item's day units, and the gauges by day earlier versions kept there: neither is a breakdown or a histogram. */
const isDayUnits = (name: string) => name.startsWith(DAY_UNITS_PREFIX) || isLegacyGaugeOnDay(name);
const lastDayOf = (month: string): string => {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, number, 0)).toISOString().slice(0, 10);
};
const nextMonth = (month: string): string => nextDay(lastDayOf(month)).slice(0, 7);

/** Keys of one kind of month item (`YYYY-MM`) in a shard: the insight month items, or one histogram's items. */
type MonthKey = (month: string, shard: number) => Key;

/** One shard's month items from `from` (or the first) to `to`, every slot, ascending; only `names` of them when given. */
const shardMonths = async (
  db: DynamoDBDocumentClient,
  table: string,
  keyOf: MonthKey,
  shard: number,
  from: string | undefined,
  to: string,
  names?: readonly string[],
): Promise<Record<string, unknown>[]> => {
  const projected = names === undefined ? undefined : Object.fromEntries(names.map((name, i) => [`#p${i}`, name]));
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(db, {
    TableName: table,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ...(projected === undefined
      ? {}
      : {
          ProjectionExpression: ['#sk', ...Object.keys(projected)].join(', '),
          ExpressionAttributeNames: { '#sk': 'SK', ...projected },
        }),
    ExpressionAttributeValues: {
      ':pk': keyOf(to, shard).PK,
      ':from': keyOf(from ?? '', shard).SK,
      ':to': counterPeriods.through(keyOf(to, shard)),
    },
  })) {
    items.push(...page);
  }
  return items;
};

const DAYS_OF_MONTH = Array.from({ length: 31 }, (_, i) => dayUnitsCounter(String(i + 1).padStart(2, '0')));

/**
 * How an organization's insight counters over [from, to] are read: whole months from the month
 * items (one per month and shard), the days of a month the range cuts from the day items. The last
 * month's item stands for its days up to `to` when no unit of it was counted on a later day of the
 * month (records dated ahead), so a range ending today reads none of this month's day items.
 * `first` are the month items read with `names` (all of their counters when unset), `days` the
 * counters taken from day items instead, and `again` reads other counters of the same months: of
 * the month items, or of the items `keyOf` names (a histogram's), in the shards that hold any.
 */
type MonthPlan = {
  first: Record<string, unknown>[];
  days: Counters;
  again: (names: readonly string[], keyOf?: MonthKey) => Promise<Record<string, unknown>[]>;
};
const planMonths = async (
  db: DynamoDBDocumentClient,
  table: string,
  orgId: string,
  from: string | undefined,
  to: string,
  names?: readonly string[],
): Promise<MonthPlan> => {
  const scope: MetricsScope = { orgId, insights: true };
  const lastMonth = to.slice(0, 7);
  const days: Counters = {};
  const addDays = async (first: string, last: string) => {
    const shards = await Promise.all(SHARDS.map((shard) => shardDays(db, table, scope, shard, first, last)));
    for (const item of shards.flat()) addInto(days, item, (name) => name === TOTAL);
  };
  const cut = from !== undefined && !from.endsWith('-01');
  if (cut && from.slice(0, 7) === lastMonth) {
    await addDays(from, to);
    return { first: [], days, again: async () => [] };
  }
  const firstWhole = from === undefined ? undefined : cut ? nextMonth(from.slice(0, 7)) : from.slice(0, 7);
  const months: MonthKey = (month, shard) => key.insightMonth(orgId, month, shard);
  const readMonths = (projected: readonly string[] | undefined, shards: readonly number[], keyOf = months) =>
    Promise.all(shards.map((shard) => shardMonths(db, table, keyOf, shard, firstWhole, lastMonth, projected)));
  const [byShard] = await Promise.all([
    readMonths(names === undefined ? undefined : [...names, ...DAYS_OF_MONTH], SHARDS),
    cut ? addDays(from, lastDayOf(from.slice(0, 7))) : undefined,
  ]);
  const items = byShard.flat();
  // A shard with no month item in the range has none to read again (most organizations count in one).
  const holding = SHARDS.filter((shard) => (byShard[shard]?.length ?? 0) > 0);
  const monthOf = (item: Record<string, unknown>) => counterPeriods.of(item.SK as string);
  const toDay = Number(to.slice(8, 10));
  const ahead =
    to !== lastDayOf(lastMonth) &&
    items
      .filter((item) => monthOf(item) === lastMonth)
      .some((item) =>
        DAYS_OF_MONTH.slice(toDay).some((name) => typeof item[name] === 'number' && (item[name] as number) > 0),
      );
  const counted = (read: Record<string, unknown>[]) =>
    ahead ? read.filter((item) => monthOf(item) !== lastMonth) : read;
  if (ahead) await addDays(`${lastMonth}-01`, to);
  return {
    first: counted(items),
    days,
    again: async (more, keyOf) => counted((await readMonths(more, holding, keyOf)).flat()),
  };
};

/**
 * The breakdown counters and histogram group counts of an organization's insight items summed over
 * [from, to] (`planMonths`; day items add their histogram buckets). With `breakdown`, only that breakdown's counters are summed: the month items are
 * read twice, first for the keys it counted, then for those keys' counters alone.
 */
const insightSums = async (
  db: DynamoDBDocumentClient,
  table: string,
  orgId: string,
  from: string | undefined,
  to: string,
  breakdown?: { metric: BreakdownMetric; dimension: Dimension },
): Promise<Counters> => {
  const keysAttribute =
    breakdown === undefined ? undefined : breakdownKeysAttribute(breakdown.metric, breakdown.dimension);
  const plan = await planMonths(db, table, orgId, from, to, keysAttribute === undefined ? undefined : [keysAttribute]);
  const sums: Counters = { ...plan.days };
  if (keysAttribute === undefined || breakdown === undefined) {
    for (const item of plan.first) addInto(sums, item, isDayUnits);
    return sums;
  }
  const keys = new Set<string>();
  for (const item of plan.first)
    for (const name of (item[keysAttribute] as Set<string> | undefined) ?? []) keys.add(name);
  const names = [...keys].map((name) => dimensionCounter(breakdown.metric, breakdown.dimension, name));
  if (names.length > 0) for (const item of await plan.again(names)) addInto(sums, item, isDayUnits);
  return sums;
};

/**
 * What the medians of an organization's histograms over [from, to] need (`planMonths`): the month
 * items are read for the histograms' group counts, then each histogram's item of the group that
 * holds its median for that group's buckets, so both reads meet items whose size is bounded by the
 * number of groups and the width of one, however many records the months count. Day items hold
 * bucket counts only; their groups are counted here.
 */
const insightMedianWindows = async (
  db: DynamoDBDocumentClient,
  table: string,
  orgId: string,
  from: string | undefined,
  to: string,
  histograms: readonly HistogramRef[],
): Promise<MedianWindow[]> => {
  const plan = await planMonths(db, table, orgId, from, to, histograms.flatMap(groupCounters));
  const months: Counters = {};
  for (const item of plan.first) addInto(months, item, isDayUnits);
  const found = histograms.map((ref) => {
    const groups = groupCountsOf(plan.days, ref);
    for (const name of groupCounters(ref))
      if (months[name] !== undefined) groups[name] = (groups[name] ?? 0) + months[name];
    return medianGroup(ref, groups);
  });
  return Promise.all(
    histograms.map(async (ref, i): Promise<MedianWindow> => {
      const median = found[i];
      if (median === undefined) return EMPTY_WINDOW;
      const names = bucketCountersOf(ref, median.group);
      const item = histogramItem(ref, median.group);
      const buckets: Counters = {};
      for (const read of await plan.again(names, (month, shard) => key.insightHistograms(orgId, item, month, shard))) {
        addInto(buckets, read, () => false);
      }
      const counts = names.map((name) => [name, (buckets[name] ?? 0) + (plan.days[name] ?? 0)]);
      return { samples: median.samples, below: median.below, buckets: Object.fromEntries(counts) };
    }),
  );
};

/** A day's counters are the sums of its items in every shard and slot (the item of the layout before slots among them). */
const summedDays = async (
  db: DynamoDBDocumentClient,
  table: string,
  scope: MetricsScope,
  from: string | undefined,
  to: string,
): Promise<DayCounters[]> => {
  const shards = await Promise.all(SHARDS.map((shard) => shardDays(db, table, scope, shard, from, to)));
  const byDay = new Map<string, Record<string, number>>();
  for (const item of shards.flat()) {
    const day = counterPeriods.of(item.SK as string);
    const counters = byDay.get(day) ?? {};
    for (const [name, value] of Object.entries(item)) {
      if (typeof value === 'number' && name !== TOTAL) counters[name] = (counters[name] ?? 0) + value;
    }
    byDay.set(day, counters);
  }
  return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, counters]): DayCounters => ({ day, counters }));
};

export const metricsRepository = (db: DynamoDBDocumentClient, table: string): MetricsStore => ({
  async sums(scope, from, to, breakdown) {
    if (scope.insights) return insightSums(db, table, scope.orgId, from, to, breakdown);
    const sums: Counters = {};
    for (const { counters } of await summedDays(db, table, scope, from, to)) addInto(sums, counters, () => false);
    return sums;
  },

  days: (scope, from, to) => summedDays(db, table, scope, from, to),

  medianWindows: (orgId, from, to, histograms) => insightMedianWindows(db, table, orgId, from, to, histograms),

  /**
   * Counters never go below zero, so a day is active when any of its items has a positive total;
   * the slots of `day` sort after `DAY#<day>`, those of earlier days before it.
   */
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
