import type { AssetType } from '../allowlist/asset-types.ts';
import { type ActivityRecord, COUNTED_THREAT_STATUSES } from '../lifecycle/activity.ts';

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
/** The number of the widening bucket (from an hour on) that holds `minutes`. */
const stepOf = (minutes: number): number => {
  let k = Math.floor(Math.log(minutes / EXACT_MINUTES) / Math.log(GROWTH));
  while (k > 0 && lowerOf(k) > minutes) k--;
  while (lowerOf(k + 1) <= minutes) k++;
  return k;
};
/**
 * The histogram bucket of a duration in whole minutes, named by its lower bound: every minute up
 * to an hour is its own bucket, then each bucket is 5 % wider than the previous, so a median read
 * from the buckets is within 5 % of the exact one.
 */
export const bucketOf = (minutes: number): number => (minutes < EXACT_MINUTES ? minutes : lowerOf(stepOf(minutes)));

/**
 * Buckets per group. A month item also counts each histogram by groups of consecutive buckets, so
 * a median over months reads the groups' counts first and then the buckets of the one group that
 * holds it: two reads of a bounded number of counters, however many buckets the months filled.
 */
const GROUP_SIZE = 12;
/** The position of a bucket among all buckets, from 0. */
const positionOf = (bucket: number): number => (bucket < EXACT_MINUTES ? bucket : EXACT_MINUTES + stepOf(bucket));
const bucketAt = (position: number): number =>
  position < EXACT_MINUTES ? position : lowerOf(position - EXACT_MINUTES);
export const groupOf = (bucket: number): number => Math.floor(positionOf(bucket) / GROUP_SIZE);
/** The longest duration two timestamps can be apart, in minutes: its group bounds every histogram's. */
const LONGEST_MINUTES = Math.floor((2 * 8.64e15) / MINUTE_MS);
const LAST_GROUP: Record<Histogram, number> = {
  timeToBlock: groupOf(bucketOf(LONGEST_MINUTES)),
  timeToTakedown: groupOf(bucketOf(MAX_TAKEDOWN_MINUTES)),
};

/** A histogram of the organization (`brand` unset) or of one brand's records. */
export type HistogramRef = { histogram: Histogram; brand?: string };
/** The prefix of a histogram's group counters in the month items (`i.ttbg.3`, `i.ttbg@acme.3`). */
const histogramGroupPrefix = ({ histogram, brand }: HistogramRef): string =>
  `${PREFIX}${HISTOGRAMS[histogram]}g${brand === undefined ? '' : `@${brand}`}.`;
/** Every group counter a histogram can have, in group order. */
export const groupCounters = (ref: HistogramRef): string[] =>
  Array.from({ length: LAST_GROUP[ref.histogram] + 1 }, (_, group) => `${histogramGroupPrefix(ref)}${group}`);
/** The bucket counters of one group of a histogram. */
export const bucketCountersOf = (ref: HistogramRef, group: number): string[] =>
  Array.from(
    { length: GROUP_SIZE },
    (_, i) => `${histogramPrefix(ref.histogram, ref.brand)}${bucketAt(group * GROUP_SIZE + i)}`,
  );
/**
 * A histogram counter's parts: `i.<code>[g][@<brand>].<n>`, a bucket's count (`n` the bucket) or,
 * with `g`, a group's (`n` the group); undefined for any other counter.
 */
const histogramCounter = (name: string): { code: string; group: boolean; brand: string; n: number } | undefined => {
  if (!name.startsWith(PREFIX)) return undefined;
  const dot = name.lastIndexOf('.');
  const tail = name.slice(dot + 1);
  if (!/^\d+$/.test(tail)) return undefined;
  const body = name.slice(PREFIX.length, dot);
  const at = body.indexOf('@');
  const head = at === -1 ? body : body.slice(0, at);
  const group = head.endsWith('g');
  const code = group ? head.slice(0, -1) : head;
  if (!CODES.has(code)) return undefined;
  return { code, group, brand: at === -1 ? '' : body.slice(at), n: Number(tail) };
};
const CODES = new Set<string>(Object.values(HISTOGRAMS));

/** Whether a counter is a group counter of a histogram. */
export const isGroupCounter = (name: string): boolean => histogramCounter(name)?.group === true;

/**
 * The histogram item a bucket counter is kept in: one per histogram and group (`ttb3`), holding the
 * organization's buckets of the group and its brands'; undefined for any other counter.
 */
export const histogramItemOf = (name: string): string | undefined => {
  const counter = histogramCounter(name);
  return counter === undefined || counter.group ? undefined : `${counter.code}${groupOf(counter.n)}`;
};
/** The histogram item holding a histogram's buckets of one group. */
export const histogramItem = ({ histogram }: HistogramRef, group: number): string => `${HISTOGRAMS[histogram]}${group}`;

/** The group counter a bucket counter also counts to; undefined for any other counter. */
export const groupCounterOf = (name: string): string | undefined => {
  const counter = histogramCounter(name);
  if (counter === undefined || counter.group) return undefined;
  return `${PREFIX}${counter.code}g${counter.brand}.${groupOf(counter.n)}`;
};

/** What a histogram's median needs: its samples, those in groups below the median's group, and that group's bucket counts. */
export type MedianWindow = { samples: number; below: number; buckets: Readonly<Record<string, number>> };
export const EMPTY_WINDOW: MedianWindow = { samples: 0, below: 0, buckets: {} };

/** A histogram's group counts from counters that hold its bucket counts (day items hold no group counts). */
export const groupCountsOf = (
  counters: Readonly<Record<string, number>>,
  ref: HistogramRef,
): Record<string, number> => {
  const prefix = histogramPrefix(ref.histogram, ref.brand);
  const groups: Record<string, number> = {};
  for (const [name, value] of Object.entries(counters)) {
    if (!name.startsWith(prefix) || value <= 0) continue;
    const group = groupCounterOf(name);
    if (group !== undefined) groups[group] = (groups[group] ?? 0) + value;
  }
  return groups;
};

/** Of a histogram's group counts, the group holding its median unit (the ⌈samples / 2⌉th), and the samples below it. */
export const medianGroup = (
  ref: HistogramRef,
  groups: Readonly<Record<string, number>>,
): { group: number; below: number; samples: number } | undefined => {
  const counts = groupCounters(ref).map((name) => Math.max(0, groups[name] ?? 0));
  const samples = counts.reduce((sum, count) => sum + count, 0);
  if (samples === 0) return undefined;
  const rank = Math.ceil(samples / 2);
  let below = 0;
  for (const [group, count] of counts.entries()) {
    if (below + count >= rank) return { group, below, samples };
    below += count;
  }
  return undefined;
};

/** A histogram's median window from counters that hold all of its bucket counts. */
export const medianWindowOf = (counters: Readonly<Record<string, number>>, ref: HistogramRef): MedianWindow => {
  const found = medianGroup(ref, groupCountsOf(counters, ref));
  if (found === undefined) return EMPTY_WINDOW;
  const buckets = Object.fromEntries(bucketCountersOf(ref, found.group).map((name) => [name, counters[name] ?? 0]));
  return { samples: found.samples, below: found.below, buckets };
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

export type Count = { day: string; name: string };

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

/** Whether an attribute is an insight counter (earlier versions kept them in the metrics day items). */
export const isInsightCounter = (name: string): boolean => name.startsWith(PREFIX);
