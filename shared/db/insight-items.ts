/**
 * Where a record's insight counters are kept: the day, month, gauge and histogram items their deltas
 * go to, the attributes those items hold, and the markers on a stored version that say which of
 * them it was counted in.
 */
import {
  type BreakdownMetric,
  CHANGED,
  type Count,
  type Dimension,
  groupCounterOf,
  histogramItemOf,
  insightCounts,
  OPEN,
} from '../domain/insights/insight-counters.ts';
import {
  type ActivityRecord,
  type CounterDelta,
  counterShardOf,
  type RecordWrite,
} from '../domain/lifecycle/activity.ts';

/**
 * Marks a stored version as counted in the insight day items (versions stored before them are not).
 * The earlier marker named versions counted in the metrics day items, whose insight counters are no
 * longer read: a version carrying only that one withdraws nothing from the insight day items.
 */
export const INSIGHTS_COUNTED = 'insightItemsCounted';
export const LEGACY_INSIGHTS_COUNTED = 'insightsCounted';
const counted = (record: ActivityRecord | undefined): boolean =>
  record !== undefined && (record as Record<string, unknown>)[INSIGHTS_COUNTED] === true;

/**
 * The insight counter deltas of writes, per organization day item and shard: the next versions'
 * counts minus those of the previous versions that were counted (a version stored before these
 * counters existed withdraws nothing it never added).
 */
export const insightDeltas = (writes: readonly RecordWrite[]): CounterDelta[] => {
  const entries = new Map<string, CounterDelta>();
  const add = (orgId: string, shard: number, { day, name }: Count, amount: number) => {
    const id = `${orgId}\u0000${day}\u0000${shard}`;
    const entry = entries.get(id) ?? { orgId, day, shard, deltas: {} };
    entry.deltas[name] = (entry.deltas[name] ?? 0) + amount;
    entries.set(id, entry);
  };
  for (const write of writes) {
    const shard = counterShardOf(write);
    for (const count of insightCounts(write.next)) add(write.next.organization, shard, count, 1);
    if (write.previous !== undefined && counted(write.previous)) {
      for (const count of insightCounts(write.previous)) add(write.previous.organization, shard, count, -1);
    }
  }
  return [...entries.values()].flatMap((entry) => {
    const deltas = Object.fromEntries(Object.entries(entry.deltas).filter(([, delta]) => delta !== 0));
    return Object.keys(deltas).length > 0 ? [{ ...entry, deltas }] : [];
  });
};

/**
 * Marks a stored version as counted in the insight month items too (versions stored before them are
 * not): `GAUGE_ITEMS` when its open-work gauges went to the gauge items, `true` when an earlier
 * version counted them in the month items. One attribute for both, so the marker adds nothing to
 * the size of a record (nor to that of its index entries).
 */
export const MONTHS_COUNTED = 'insightMonthsCounted';
/** A version counted in the month items with its open work in the gauge items. */
export const GAUGE_ITEMS = 2;
/** A version counted as `GAUGE_ITEMS`, with its histogram buckets in the histogram items and their groups in the month items. */
export const HISTOGRAM_ITEMS = 3;
/** The markers of a version stored now: counted in the insight day items and in every month, gauge and histogram item. */
export const COUNTED_EVERYWHERE = { [INSIGHTS_COUNTED]: true, [MONTHS_COUNTED]: HISTOGRAM_ITEMS } as const;
/** How a stored version was counted: 0 not in the month items, 1 in them alone (`true`), else its marker. */
const levelOf = (record: object | undefined): number => {
  const marker = record === undefined ? undefined : (record as Record<string, unknown>)[MONTHS_COUNTED];
  return marker === true ? 1 : typeof marker === 'number' ? marker : 0;
};
export const countedInMonths = (record: object | undefined): boolean => levelOf(record) >= 1;
export const countedInGauges = (record: object | undefined): boolean => levelOf(record) >= GAUGE_ITEMS;

const GAUGES = new Set<string>([...Object.values(OPEN), ...Object.values(CHANGED)]);
/**
 * The counter of a month item that sums every breakdown and histogram unit counted on one day of the
 * month (`DD`): a reader tells from them whether a month's item holds counts of days it must leave out.
 */
export const dayUnitsCounter = (dayOfMonth: string): string => `n.${dayOfMonth}`;
export const DAY_UNITS_PREFIX = 'n.';

export type MonthDelta = {
  orgId: string;
  month: string;
  shard: number;
  /** The histogram item of the month (`ttb3`: the time-to-block buckets of group 3); unset for the month or gauge item. */
  item?: string;
  deltas: Record<string, number>;
};

/**
 * The gauges by day of the month that earlier versions kept in the month items (`<gauge>@DD`), which
 * no longer read or write them.
 */
const LEGACY_GAUGE_ON_DAY = /^(.+)@(\d{2})$/;
export const isLegacyGaugeOnDay = (name: string): boolean => GAUGES.has(LEGACY_GAUGE_ON_DAY.exec(name)?.[1] ?? '');

/**
 * A gauge item has one slot per gauge and day of the month (`DD`), named by a one-letter code of the
 * gauge and the day (`p04`: pending proposals counted on the 4th). A gauge counted in a month has all
 * 31 of its slots, zero or not (`GAUGE_DAYS`), so the item's size depends on which gauges the month
 * has, never on how many records it counts.
 */
const GAUGE_CODES: Record<string, string> = {
  [OPEN.pendingProposals]: 'p',
  [OPEN.takedownsTodo]: 't',
  [OPEN.takedownsInProgress]: 'w',
  [CHANGED.takedownsCancelled]: 'c',
  [CHANGED.deadAssets]: 'd',
};
const GAUGE_NAMES = new Map(Object.entries(GAUGE_CODES).map(([gauge, code]) => [code, gauge]));
export const GAUGE_DAYS = Array.from({ length: 31 }, (_, i) => String(i + 1).padStart(2, '0'));
export const gaugeOnDay = (gauge: string, dayOfMonth: string): string => `${GAUGE_CODES[gauge]}${dayOfMonth}`;
const GAUGE_SLOT = /^([a-z])(\d{2})$/;
/** The gauge and day of the month of a gauge item's slot; undefined for any other attribute. */
export const gaugeSlot = (name: string): { gauge: string; dayOfMonth: string } | undefined => {
  const match = GAUGE_SLOT.exec(name);
  const gauge = match === null ? undefined : GAUGE_NAMES.get(match[1] as string);
  return gauge === undefined ? undefined : { gauge, dayOfMonth: (match as RegExpExecArray)[2] as string };
};
/** Every slot of the gauges a gauge item's deltas count to (those it must hold). */
export const gaugeSlotsOf = (deltas: Record<string, number>): string[] => {
  const gauges = new Set(Object.keys(deltas).flatMap((name) => gaugeSlot(name)?.gauge ?? []));
  return [...gauges].flatMap((gauge) => GAUGE_DAYS.map((day) => gaugeOnDay(gauge, day)));
};

/** A unit a record adds to one of its month's items: `item` names a histogram item (`ttb3`), else it is the month item or gauge item. */
type MonthCount = { month: string; name: string; item?: string };

/**
 * What a live record adds to its month items: its breakdown and histogram units, each one's day;
 * a version counted as `HISTOGRAM_ITEMS` counts each histogram unit by its group (the bucket goes to
 * the histogram items), one counted before by its bucket.
 */
const monthCounts = (record: ActivityRecord, level: number): MonthCount[] =>
  insightCounts(record).flatMap(({ day, name }) => {
    if (GAUGES.has(name)) return [];
    const month = day.slice(0, 7);
    const group = level >= HISTOGRAM_ITEMS ? groupCounterOf(name) : undefined;
    return [
      { month, name: group ?? name },
      { month, name: dayUnitsCounter(day.slice(8, 10)) },
    ];
  });

/** What a live record adds to its gauge items: its open-work gauges, each under its day of the month. */
const gaugeCounts = (record: ActivityRecord): MonthCount[] =>
  insightCounts(record).flatMap(({ day, name }) =>
    GAUGES.has(name) ? [{ month: day.slice(0, 7), name: gaugeOnDay(name, day.slice(8, 10)) }] : [],
  );

/** What a live record adds to its histogram items: each histogram unit's bucket, in the item of its histogram and group. */
const histogramCounts = (record: ActivityRecord): MonthCount[] =>
  insightCounts(record).flatMap(({ day, name }) => {
    const item = histogramItemOf(name);
    return item === undefined ? [] : [{ month: day.slice(0, 7), name, item }];
  });

/**
 * Per organization month and shard (the shard of the day items they roll up), and item where a
 * month has several: the next versions' counts minus those of previous versions counted there
 * (counted as their level says).
 */
const monthlyDeltas = (
  writes: readonly RecordWrite[],
  counts: (record: ActivityRecord, level: number) => MonthCount[],
  countedFrom: number,
): MonthDelta[] => {
  const entries = new Map<string, MonthDelta>();
  const add = (orgId: string, shard: number, { month, name, item }: MonthCount, amount: number) => {
    const id = `${orgId}\u0000${month}\u0000${shard}\u0000${item ?? ''}`;
    const entry = entries.get(id) ?? { orgId, month, shard, ...(item === undefined ? {} : { item }), deltas: {} };
    entry.deltas[name] = (entry.deltas[name] ?? 0) + amount;
    entries.set(id, entry);
  };
  for (const write of writes) {
    const shard = counterShardOf(write);
    for (const count of counts(write.next, HISTOGRAM_ITEMS)) add(write.next.organization, shard, count, 1);
    const level = levelOf(write.previous);
    if (level >= countedFrom) {
      const previous = write.previous as ActivityRecord;
      for (const count of counts(previous, level)) add(previous.organization, shard, count, -1);
    }
  }
  return [...entries.values()].flatMap((entry) => {
    const deltas = Object.fromEntries(Object.entries(entry.deltas).filter(([, delta]) => delta !== 0));
    return Object.keys(deltas).length > 0 ? [{ ...entry, deltas }] : [];
  });
};

/**
 * The insight month-item deltas of writes, per organization month and shard: the next versions'
 * breakdown units and histogram groups minus what previous versions counted there.
 */
export const insightMonthDeltas = (writes: readonly RecordWrite[]): MonthDelta[] =>
  monthlyDeltas(writes, monthCounts, 1);

/**
 * The gauge-item deltas of writes, per organization month and shard: the next versions' gauges by
 * day minus those of previous versions counted in the gauge items (one counted in the month items
 * alone withdraws nothing from them).
 */
export const insightGaugeDeltas = (writes: readonly RecordWrite[]): MonthDelta[] =>
  monthlyDeltas(writes, gaugeCounts, GAUGE_ITEMS);

/**
 * The histogram-item deltas of writes, per organization month, shard and item (`item`): the next
 * versions' buckets minus those of previous versions counted there (one counted before kept its
 * buckets in the month items, and withdraws them there).
 */
export const insightHistogramDeltas = (writes: readonly RecordWrite[]): Required<MonthDelta>[] =>
  monthlyDeltas(writes, histogramCounts, HISTOGRAM_ITEMS) as Required<MonthDelta>[];

/**
 * The set attribute of a month item naming the keys a breakdown (metric and dimension) has counted
 * in it, so a breakdown reads those counters alone: `k.newThreats.source` = {"ingest", "report"}.
 */
export const breakdownKeysAttribute = (metric: BreakdownMetric, dimension: Dimension): string =>
  `k.${metric}.${dimension}`;
const DIMENSION_COUNTER = /^i\.([A-Za-z]+)\.(type|source|brand)\.(.+)$/;

/** The keys each breakdown's set attribute gains from month-item deltas: those of the counters they add to. */
export const breakdownKeysOf = (deltas: Record<string, number>): Record<string, string[]> => {
  const sets: Record<string, string[]> = {};
  for (const [name, delta] of Object.entries(deltas)) {
    const match = DIMENSION_COUNTER.exec(name);
    if (match === null || delta <= 0) continue;
    const attribute = breakdownKeysAttribute(match[1] as BreakdownMetric, match[2] as Dimension);
    sets[attribute] = [...(sets[attribute] ?? []), match[3] as string];
  }
  return sets;
};
