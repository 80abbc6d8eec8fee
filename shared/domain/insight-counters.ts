import type { ActivityRecord, CounterDelta, RecordWrite } from './activity.ts';
import { COUNTED_THREAT_STATUSES, counterShardOf } from './activity.ts';
import type { AssetType } from './asset-types.ts';

/**
 * Counters of the insights (breakdowns, time-to histograms, open work), kept in insight day items of
 * their own (sharded like the metrics day items, so the metrics reads never carry them) and moved by
 * the same transactions as the records they count: a record adds them to the insight day item of its
 * own counter shard (`counterShardOf`).
 */
const PREFIX = 'i.';

/** The published takedown vocabulary; the older names of ingest and fixtures map onto it. */
export type TakedownStage = 'TODO' | 'IN_PROGRESS' | 'PENDING_INPUT' | 'COMPLETED' | 'CANCELLED';
const STAGES: Record<string, TakedownStage> = {
  TODO: 'TODO',
  FILED: 'TODO',
  IN_PROGRESS: 'IN_PROGRESS',
  PENDING_INPUT: 'PENDING_INPUT',
  COMPLETED: 'COMPLETED',
  CANCELLED: 'CANCELLED',
  FAILED: 'CANCELLED',
};
export const takedownStage = (status: string): TakedownStage => STAGES[status] ?? 'TODO';

export const BREAKDOWN_METRICS = [
  'reports',
  'newThreats',
  'threatsWatchlisted',
  'takedownsFiled',
  'takedownsCompleted',
  'domainThreats',
  'twitterThreats',
  'telegramThreats',
  'otherThreats',
  'detections',
  'disputes',
] as const;
export type BreakdownMetric = (typeof BREAKDOWN_METRICS)[number];
export const DIMENSIONS = ['type', 'source', 'brand'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The key of records without a value for a dimension (a report has no asset type; a record no brand). */
export const NO_KEY = 'NONE';

export const dimensionCounter = (metric: BreakdownMetric, dimension: Dimension, key: string): string =>
  `${PREFIX}${metric}.${dimension}.${key}`;
export const dimensionPrefix = (metric: BreakdownMetric, dimension: Dimension): string =>
  `${PREFIX}${metric}.${dimension}.`;

/** Open work, counted on the day its item was created: what a queue holds and how old it is. */
export const OPEN = {
  pendingProposals: `${PREFIX}open.pendingProposals`,
  takedownsTodo: `${PREFIX}open.takedownsTodo`,
  takedownsInProgress: `${PREFIX}open.takedownsInProgress`,
} as const;
/** Counted on the day of the record's last update: cancelled takedowns, and assets found dead. */
export const CHANGED = {
  takedownsCancelled: `${PREFIX}changed.takedownsCancelled`,
  deadAssets: `${PREFIX}changed.deadAssets`,
} as const;

export const HISTOGRAMS = { timeToBlock: 'ttb', timeToTakedown: 'ttt' } as const;
export type Histogram = keyof typeof HISTOGRAMS;
/** A histogram of the organization, or of the records of one of its brands. */
export const histogramPrefix = (histogram: Histogram, brand?: string): string =>
  `${PREFIX}${HISTOGRAMS[histogram]}${brand === undefined ? '' : `@${brand}`}.`;

const MINUTE_MS = 60_000;
/** Takedowns that took longer are not counted in the median (nor negative durations). */
export const MAX_TAKEDOWN_MINUTES = 40 * 24 * 60;
const EXACT_MINUTES = 60;
const GROWTH = 1.05;

const lowerOf = (k: number): number => Math.floor(EXACT_MINUTES * GROWTH ** k);
/**
 * The histogram bucket of a duration in whole minutes, named by its lower bound: every minute up
 * to an hour is its own bucket, then each bucket is 5 % wider than the previous, so a median read
 * from the buckets is within 5 % of the exact one.
 */
export const bucketOf = (minutes: number): number => {
  if (minutes < EXACT_MINUTES) return minutes;
  let k = Math.floor(Math.log(minutes / EXACT_MINUTES) / Math.log(GROWTH));
  while (k > 0 && lowerOf(k) > minutes) k--;
  while (lowerOf(k + 1) <= minutes) k++;
  return lowerOf(k);
};

const minutesBetween = (from: string, to: string): number =>
  Math.floor((Date.parse(to) - Date.parse(from)) / MINUTE_MS);

const THREAT_GROUP: Partial<Record<AssetType, BreakdownMetric>> = {
  URL: 'domainThreats',
  PAGE: 'domainThreats',
  TWITTER: 'twitterThreats',
  TELEGRAM: 'telegramThreats',
};
export const threatGroupOf = (type: AssetType): BreakdownMetric => THREAT_GROUP[type] ?? 'otherThreats';

const SOURCE_KEY = /^[a-z0-9_-]{1,32}$/;
/**
 * Where a record came from: a report by the platform its external reporter names (`direct` without
 * one), a threat by whether a report proposed it, a takedown by whether a review filed it.
 */
export const sourceOf = (record: ActivityRecord): string => {
  switch (record.kind) {
    case 'report': {
      const platform = record.reporter?.externalReporter?.platform?.trim().toLowerCase();
      if (platform === undefined || platform === '') return 'direct';
      return SOURCE_KEY.test(platform) ? platform : 'other';
    }
    case 'threat':
      return record.reportId === undefined ? 'ingest' : 'report';
    case 'takedown':
      return record.threatId === undefined ? 'ingest' : 'review';
  }
};

/** The brand a record is broken down under: its first brand, so each record counts under one key. */
export const brandKeyOf = (record: ActivityRecord): string => record.brands[0] ?? NO_KEY;
const typeKeyOf = (record: ActivityRecord): string =>
  record.kind === 'report' ? NO_KEY : (record.assetType ?? NO_KEY);

const dayOf = (timestamp: string): string => timestamp.slice(0, 10);
const livenessOf = (record: ActivityRecord): unknown => (record as { livenessStatus?: unknown }).livenessStatus;

type Count = { day: string; name: string };

/** The breakdown metrics a record counts in (each once), as of its current state. */
export const metricsOf = (record: ActivityRecord): BreakdownMetric[] => {
  switch (record.kind) {
    case 'report':
      return ['reports'];
    case 'threat': {
      const metrics: BreakdownMetric[] = record.watchlisted ? ['threatsWatchlisted'] : [];
      if (COUNTED_THREAT_STATUSES.has(record.status)) metrics.push('newThreats', threatGroupOf(record.assetType));
      return metrics;
    }
    case 'takedown':
      return takedownStage(record.status) === 'COMPLETED'
        ? ['takedownsFiled', 'takedownsCompleted']
        : ['takedownsFiled'];
  }
};

/** Every insight counter a live record adds to, one unit each. */
export const insightCounts = (record: ActivityRecord): Count[] => {
  if (record.deleted || (record.kind === 'report' && record.incomplete)) return [];
  const created = dayOf(record.createdAt);
  const counts: Count[] = [];
  const keys = { type: typeKeyOf(record), source: sourceOf(record), brand: brandKeyOf(record) };
  for (const metric of metricsOf(record)) {
    for (const dimension of DIMENSIONS)
      counts.push({ day: created, name: dimensionCounter(metric, dimension, keys[dimension]) });
  }
  const histogram = (name: Histogram, minutes: number) => {
    const bucket = bucketOf(minutes);
    counts.push({ day: created, name: `${histogramPrefix(name)}${bucket}` });
    for (const brand of record.brands) counts.push({ day: created, name: `${histogramPrefix(name, brand)}${bucket}` });
  };
  switch (record.kind) {
    case 'report':
      for (const proposal of record.proposals ?? []) {
        if (proposal.reviewStatus === 'PENDING') counts.push({ day: created, name: OPEN.pendingProposals });
      }
      break;
    case 'threat':
      if (COUNTED_THREAT_STATUSES.has(record.status) && record.blockedAt !== undefined) {
        const minutes = minutesBetween(record.createdAt, record.blockedAt);
        if (minutes >= 0) histogram('timeToBlock', minutes);
      }
      break;
    case 'takedown': {
      const stage = takedownStage(record.status);
      if (stage === 'TODO') counts.push({ day: created, name: OPEN.takedownsTodo });
      if (stage === 'IN_PROGRESS') counts.push({ day: created, name: OPEN.takedownsInProgress });
      if (stage === 'CANCELLED') counts.push({ day: dayOf(record.updatedAt), name: CHANGED.takedownsCancelled });
      if (stage === 'COMPLETED') {
        const minutes = minutesBetween(record.createdAt, record.updatedAt);
        if (minutes >= 0 && minutes <= MAX_TAKEDOWN_MINUTES) histogram('timeToTakedown', minutes);
      }
      if (livenessOf(record) === 'DEAD') counts.push({ day: dayOf(record.updatedAt), name: CHANGED.deadAssets });
      break;
    }
  }
  return counts;
};

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

/** Whether an attribute is an insight counter (earlier versions kept them in the metrics day items). */
export const isInsightCounter = (name: string): boolean => name.startsWith(PREFIX);

/**
 * Marks a stored version as counted in the insight month items too (versions stored before them are
 * not): `GAUGE_ITEMS` when its open-work gauges went to the gauge items, `true` when an earlier
 * version counted them in the month items. One attribute for both, so the marker adds nothing to
 * the size of a record (nor to that of its index entries).
 */
export const MONTHS_COUNTED = 'insightMonthsCounted';
export const GAUGE_ITEMS = 2;
const markerOf = (record: object | undefined): unknown =>
  record === undefined ? undefined : (record as Record<string, unknown>)[MONTHS_COUNTED];
export const countedInMonths = (record: object | undefined): boolean =>
  markerOf(record) === true || markerOf(record) === GAUGE_ITEMS;
export const countedInGauges = (record: object | undefined): boolean => markerOf(record) === GAUGE_ITEMS;

const GAUGES = new Set<string>([...Object.values(OPEN), ...Object.values(CHANGED)]);
/**
 * The counter of a month item that sums every breakdown and histogram unit counted on one day of the
 * month (`DD`): a reader tells from them whether a month's item holds counts of days it must leave out.
 */
export const dayUnitsCounter = (dayOfMonth: string): string => `n.${dayOfMonth}`;
export const DAY_UNITS_PREFIX = 'n.';

export type MonthDelta = { orgId: string; month: string; shard: number; deltas: Record<string, number> };

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

type MonthCount = { month: string; name: string };

/** What a live record adds to its month items: its breakdown and histogram units, and each one's day. */
const monthCounts = (record: ActivityRecord): MonthCount[] =>
  insightCounts(record).flatMap(({ day, name }) =>
    GAUGES.has(name)
      ? []
      : [
          { month: day.slice(0, 7), name },
          { month: day.slice(0, 7), name: dayUnitsCounter(day.slice(8, 10)) },
        ],
  );

/** What a live record adds to its gauge items: its open-work gauges, each under its day of the month. */
const gaugeCounts = (record: ActivityRecord): MonthCount[] =>
  insightCounts(record).flatMap(({ day, name }) =>
    GAUGES.has(name) ? [{ month: day.slice(0, 7), name: gaugeOnDay(name, day.slice(8, 10)) }] : [],
  );

/** Per organization month and shard (the shard of the day items they roll up): next counts minus counted previous ones. */
const monthlyDeltas = (
  writes: readonly RecordWrite[],
  counts: (record: ActivityRecord) => MonthCount[],
  counted: (record: ActivityRecord | undefined) => boolean,
): MonthDelta[] => {
  const entries = new Map<string, MonthDelta>();
  const add = (orgId: string, shard: number, month: string, name: string, amount: number) => {
    const id = `${orgId}\u0000${month}\u0000${shard}`;
    const entry = entries.get(id) ?? { orgId, month, shard, deltas: {} };
    entry.deltas[name] = (entry.deltas[name] ?? 0) + amount;
    entries.set(id, entry);
  };
  for (const write of writes) {
    const shard = counterShardOf(write);
    for (const { month, name } of counts(write.next)) add(write.next.organization, shard, month, name, 1);
    if (counted(write.previous)) {
      const previous = write.previous as ActivityRecord;
      for (const { month, name } of counts(previous)) add(previous.organization, shard, month, name, -1);
    }
  }
  return [...entries.values()].flatMap((entry) => {
    const deltas = Object.fromEntries(Object.entries(entry.deltas).filter(([, delta]) => delta !== 0));
    return Object.keys(deltas).length > 0 ? [{ ...entry, deltas }] : [];
  });
};

/**
 * The insight month-item deltas of writes, per organization month and shard: the next versions'
 * breakdown and histogram units minus those of previous versions counted there.
 */
export const insightMonthDeltas = (writes: readonly RecordWrite[]): MonthDelta[] =>
  monthlyDeltas(writes, monthCounts, countedInMonths);

/**
 * The gauge-item deltas of writes, per organization month and shard: the next versions' gauges by
 * day minus those of previous versions counted in the gauge items (one counted in the month items
 * alone withdraws nothing from them).
 */
export const insightGaugeDeltas = (writes: readonly RecordWrite[]): MonthDelta[] =>
  monthlyDeltas(writes, gaugeCounts, countedInGauges);

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
