import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.ts';
import { actingOrganization, type Caller } from '../account/access.ts';
import type { OrganizationSettings } from '../account/organization-settings.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import type { CursorCodec } from '../core/cursor.ts';
import { nextDay } from '../core/dates.ts';
import type { ListStore } from '../lifecycle/lists.ts';
import { listReports, type ReportsQuery } from '../lifecycle/views.ts';
import { COUNTER, DETECTIONS, THREAT_PREFIX } from './counters.ts';
import {
  type BreakdownMetric,
  CHANGED,
  type Dimension,
  dimensionPrefix,
  EMPTY_WINDOW,
  type HistogramRef,
  type MedianWindow,
  OPEN,
  threatGroupOf,
} from './insight-counters.ts';
import type { DayCounters, MetricsScope, MetricsStore } from './metrics.ts';

const DAY_MS = 86_400_000;
const BRANDS_METRICS_FLAG = 'brands-metrics';

export type InsightsDirectory = Pick<DirectoryStore, 'findOrganization' | 'findBrand' | 'findMembership'>;
export type InsightsStores = { metrics: MetricsStore; directory: InsightsDirectory };

/**
 * The organization a caller reads insights of: an organization key's own (a `slug`, when sent,
 * must be it); a user key must send `slug` and be an ACTIVE member. Anything else is 403, with
 * the same message whether or not the organization exists.
 */
export const insightsOrganization: typeof actingOrganization = async (directory, caller, slug, resource) => {
  if (caller.kind === 'user' && slug === undefined) {
    throw new ForbiddenError(`You do not have permission to access ${resource} for this organization`);
  }
  return actingOrganization(directory, caller, slug, resource);
};

/**
 * `POST /public/getOrganizationReports`: the reports of the organization named by `slug` (or the
 * legacy `organizationSlug`), 50 a page unless `limit` says otherwise.
 */
export const organizationReports = async (
  deps: { lists: ListStore; cursors: CursorCodec; directory: Pick<DirectoryStore, 'findMembership'> },
  caller: Caller,
  request: Omit<ReportsQuery, 'limit' | 'cursor'> & {
    slug?: string;
    organizationSlug?: string;
    limit?: number;
    cursor?: string;
  },
) => {
  const { slug, organizationSlug, limit, cursor, ...query } = request;
  const orgId = await insightsOrganization(deps.directory, caller, slug ?? organizationSlug, 'reports');
  const paging = { limit: limit ?? 50, ...(cursor === undefined ? {} : { cursor }) };
  return listReports(deps.lists, deps.cursors, orgId, { ...query, ...paging });
};

export type DateRange = { startDate?: string; endDate?: string };

const assertOrdered = ({ startDate, endDate }: DateRange): void => {
  if (startDate !== undefined && endDate !== undefined && startDate > endDate) {
    throw new BadRequestError('startDate must not be after endDate', {
      issues: [{ message: 'startDate must not be after endDate', path: 'startDate' }],
    });
  }
};

/** Days after today are never counted, as in the organization metrics. */
const endOf = (range: DateRange, today: string): string =>
  range.endDate !== undefined && range.endDate < today ? range.endDate : today;

const readDays = async (store: MetricsStore, scope: MetricsScope, range: DateRange, today: string) => {
  const end = endOf(range, today);
  if (range.startDate !== undefined && range.startDate > end) return [];
  return store.days(scope, range.startDate, end);
};

/** The scope's counters summed over the range (the insight counters from their month rollups where whole months are in it). */
const readSums = async (
  store: MetricsStore,
  scope: MetricsScope,
  range: DateRange,
  today: string,
  breakdown?: { metric: BreakdownMetric; dimension: Dimension },
) => {
  const end = endOf(range, today);
  if (range.startDate !== undefined && range.startDate > end) return {};
  return store.sums(scope, range.startDate, end, breakdown);
};

type Counters = Readonly<Record<string, number>>;
const sumOf = (days: readonly DayCounters[]): Record<string, number> => {
  const totals: Record<string, number> = {};
  for (const { counters } of days) {
    for (const [name, value] of Object.entries(counters)) totals[name] = (totals[name] ?? 0) + value;
  }
  return totals;
};

const threatsOf = (counters: Counters, group?: BreakdownMetric): number => {
  let total = 0;
  for (const [name, value] of Object.entries(counters)) {
    if (!name.startsWith(THREAT_PREFIX)) continue;
    if (group === undefined || threatGroupOf(name.slice(THREAT_PREFIX.length) as AssetType) === group) total += value;
  }
  return total;
};

/** A breakdown metric's value in a set of metrics counters (a day's, or a range's sums). */
export const metricValue = (counters: Counters, metric: BreakdownMetric): number => {
  switch (metric) {
    case 'reports':
      return counters[COUNTER.reports] ?? 0;
    case 'threatsWatchlisted':
      return counters[COUNTER.watchlisted] ?? 0;
    case 'takedownsFiled':
      return counters[COUNTER.takedownsFiled] ?? 0;
    case 'takedownsCompleted':
      return counters[COUNTER.takedownsCompleted] ?? 0;
    case 'newThreats':
      return threatsOf(counters);
    case 'detections':
      return counters[DETECTIONS] ?? 0;
    case 'disputes':
      return counters.disputes ?? 0;
    default:
      return threatsOf(counters, metric);
  }
};

/**
 * The lower median of a histogram's samples, as the lower bound of the bucket holding it (see
 * `bucketOf`); null without samples.
 */
/** The median bucket of a histogram from its window: the bucket holding its ⌈samples / 2⌉th unit. */
export const windowMedian = ({ samples, below, buckets }: MedianWindow): number | null => {
  if (samples === 0) return null;
  const rank = Math.ceil(samples / 2);
  let seen = below;
  const counted = Object.entries(buckets)
    .map(([name, count]) => [Number(name.slice(name.lastIndexOf('.') + 1)), count] as const)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a - b);
  for (const [bucket, count] of counted) {
    seen += count;
    if (seen >= rank) return bucket;
  }
  return null;
};

const brandScope = async (directory: InsightsDirectory, orgId: string, brandSlug: string): Promise<MetricsScope> => {
  const organization = await directory.findOrganization(orgId);
  if (!organization?.featureFlags.includes(BRANDS_METRICS_FLAG)) {
    throw new ForbiddenError('Brand metrics are not enabled for this organization');
  }
  if (!(await directory.findBrand(orgId, brandSlug))) throw new NotFoundError('Brand not found');
  return { orgId, brandSlug };
};

export type MetricsSummary = Record<BreakdownMetric, number> & {
  medianTimeToBlockMinutes: number | null;
  medianTimeToTakedownHours: number | null;
};

/**
 * `POST /metrics/summary`: the organization's counters over whole UTC days (default: from its
 * first counted day to today), or those of one brand (`brandSlug`, the brand metrics' rules), with
 * the median times to block and to take down from the day items' histograms.
 */
export const metricsSummary = async (
  stores: InsightsStores,
  orgId: string,
  query: DateRange & { brandSlug?: string },
  today: string,
): Promise<MetricsSummary> => {
  assertOrdered(query);
  const brand = query.brandSlug;
  const end = endOf(query, today);
  const histograms: HistogramRef[] = [
    { histogram: 'timeToBlock', brand },
    { histogram: 'timeToTakedown', brand },
  ];
  const [counters, [toBlock, toTakedown]] = await Promise.all([
    (async () =>
      sumOf(
        await readDays(
          stores.metrics,
          brand === undefined ? { orgId } : await brandScope(stores.directory, orgId, brand),
          query,
          today,
        ),
      ))(),
    (async () => {
      const windows =
        query.startDate !== undefined && query.startDate > end
          ? histograms.map(() => EMPTY_WINDOW)
          : await stores.metrics.medianWindows(orgId, query.startDate, end, histograms);
      return windows.map(windowMedian);
    })(),
  ]);
  const value = (metric: BreakdownMetric) => metricValue(counters, metric);
  return {
    reports: value('reports'),
    newThreats: value('newThreats'),
    // Brand metrics count no watchlisted threats.
    threatsWatchlisted: brand === undefined ? value('threatsWatchlisted') : 0,
    takedownsFiled: value('takedownsFiled'),
    takedownsCompleted: value('takedownsCompleted'),
    domainThreats: value('domainThreats'),
    twitterThreats: value('twitterThreats'),
    telegramThreats: value('telegramThreats'),
    otherThreats: value('otherThreats'),
    detections: value('detections'),
    disputes: value('disputes'),
    medianTimeToBlockMinutes: toBlock ?? null,
    medianTimeToTakedownHours:
      toTakedown === null || toTakedown === undefined ? null : Math.round((toTakedown / 60) * 100) / 100,
  };
};

export type BreakdownQuery = DateRange & { by: 'day' | Dimension; metric: BreakdownMetric };
export type BreakdownRow = { key: string; value: number };

/**
 * `POST /metrics/breakdown`: one metric of the summary, split by day (the days with a count,
 * ascending) or by asset type, source or brand (largest first); the values sum to the summary's.
 */
export const metricsBreakdown = async (
  stores: InsightsStores,
  orgId: string,
  query: BreakdownQuery,
  today: string,
): Promise<{ rows: BreakdownRow[] }> => {
  assertOrdered(query);
  if (query.by === 'day') {
    const rows = (await readDays(stores.metrics, { orgId }, query, today))
      .map(({ day, counters }) => ({ key: day, value: metricValue(counters, query.metric) }))
      .filter((row) => row.value > 0);
    return { rows };
  }
  const prefix = dimensionPrefix(query.metric, query.by);
  const sums = await readSums(stores.metrics, { orgId, insights: true }, query, today, {
    metric: query.metric,
    dimension: query.by,
  });
  const rows = Object.entries(sums)
    .filter(([name, value]) => name.startsWith(prefix) && value > 0)
    .map(([name, value]) => ({ key: name.slice(prefix.length), value }))
    .sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : 1));
  return { rows };
};

const shiftDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string): number => Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS);

/** The window `POST /metrics/found` reads without a start: the 30 days ending on its end. */
const FOUND_DEFAULT_DAYS = 30;

/**
 * `POST /metrics/found`: new threats in the window (default: the 30 days ending today) and in the
 * window of the same length just before it, from one read of both windows' day items.
 */
export const foundThreats = async (
  stores: InsightsStores,
  orgId: string,
  range: DateRange,
  today: string,
): Promise<{ found: number; previousPeriod: number; startDate: string; endDate: string }> => {
  assertOrdered(range);
  const end = range.endDate ?? today;
  const start = range.startDate ?? shiftDays(end, 1 - FOUND_DEFAULT_DAYS);
  const length = daysBetween(start, end) + 1;
  const previousStart = shiftDays(start, -length);
  const days = await readDays(stores.metrics, { orgId }, { startDate: previousStart, endDate: end }, today);
  let found = 0;
  let previousPeriod = 0;
  for (const { day, counters } of days) {
    if (day >= start) found += metricValue(counters, 'newThreats');
    else previousPeriod += metricValue(counters, 'newThreats');
  }
  return { found, previousPeriod, startDate: start, endDate: end };
};

/** The open work of an organization: every day item from its first, for the gauges counted on them. */
export type OpenWork = { days: DayCounters[] };
export interface OpenWorkStore {
  /** The named counters of each day item of the organization, ascending by day. */
  days(orgId: string, names: readonly string[]): Promise<DayCounters[]>;
}
const GAUGES = [...Object.values(OPEN), ...Object.values(CHANGED)];
export const openWork = async (store: OpenWorkStore, orgId: string): Promise<OpenWork> => ({
  days: await store.days(orgId, GAUGES),
});

const startOfDay = (day: string): number => Date.parse(`${day}T00:00:00Z`);

export type QueueName = 'review' | 'takedown';
/** The published age buckets: each item is in the one whose days hold its age (lower bound inclusive). */
export const AGE_BUCKETS = [
  { label: '<1d', fromDays: 0 },
  { label: '1-3d', fromDays: 1 },
  { label: '3-7d', fromDays: 3 },
  { label: '7-14d', fromDays: 7 },
  { label: '>14d', fromDays: 14 },
] as const;
export type AgeBucket = { label: (typeof AGE_BUCKETS)[number]['label']; count: number };
export type QueueState = {
  name: QueueName;
  size: number;
  oldestAgeSeconds: number | null;
  p50AgeSeconds: number | null;
  slaSeconds: number;
  breaching: boolean;
  /** Counts by age, summing to `size`. */
  buckets: AgeBucket[];
  /** Items waiting `windowHours` or longer. */
  staleCount: number;
};
/** The staleness window of the queue snapshot when the request names none: a week. */
export const DEFAULT_WINDOW_HOURS = 168;

/**
 * A queue's size and ages from its gauges by creation day. Ages are measured from the start of the
 * UTC day an item was created (the resolution of the counters), so they are whole days in seconds.
 */
export const queueOf = (
  work: OpenWork,
  name: QueueName,
  gauges: readonly string[],
  slaSeconds: number,
  now: number,
  windowHours = DEFAULT_WINDOW_HOURS,
): QueueState => {
  const byDay: [string, number][] = work.days
    .map(({ day, counters }): [string, number] => [day, gauges.reduce((sum, gauge) => sum + (counters[gauge] ?? 0), 0)])
    .filter(([, count]) => count > 0);
  const size = byDay.reduce((sum, [, count]) => sum + count, 0);
  const ageOf = (day: string) => Math.max(0, Math.floor((now - startOfDay(day)) / 1000));
  const oldest = byDay[0];
  let p50: number | null = null;
  let seen = 0;
  // The lower median: the ceil(size / 2)-th item from the oldest.
  for (const [day, count] of byDay) {
    seen += count;
    if (seen >= Math.ceil(size / 2)) {
      p50 = ageOf(day);
      break;
    }
  }
  const oldestAgeSeconds = oldest === undefined ? null : ageOf(oldest[0]);
  const buckets: AgeBucket[] = AGE_BUCKETS.map(({ label }) => ({ label, count: 0 }));
  let staleCount = 0;
  for (const [day, count] of byDay) {
    const age = ageOf(day);
    const index = AGE_BUCKETS.findLastIndex(({ fromDays }) => age >= fromDays * 86_400);
    (buckets[index] as AgeBucket).count += count;
    if (age >= windowHours * 3600) staleCount += count;
  }
  return {
    name,
    size,
    oldestAgeSeconds,
    p50AgeSeconds: p50,
    slaSeconds,
    breaching: oldestAgeSeconds !== null && oldestAgeSeconds > slaSeconds,
    buckets,
    staleCount,
  };
};

export const REVIEW_QUEUE = [OPEN.pendingProposals] as const;
export const TAKEDOWN_QUEUE = [OPEN.takedownsTodo, OPEN.takedownsInProgress] as const;

/**
 * `POST /operations/queues/snapshot`: the review and takedown queues, against the organization's SLAs,
 * with their age buckets and what has waited `windowHours` or longer, all from the same day gauges.
 */
export const queuesSnapshot = (
  work: OpenWork,
  settings: OrganizationSettings,
  now: number,
  windowHours = DEFAULT_WINDOW_HOURS,
) => ({
  windowHours,
  queues: [
    queueOf(work, 'review', REVIEW_QUEUE, settings.sla.reviewSeconds, now, windowHours),
    queueOf(work, 'takedown', TAKEDOWN_QUEUE, settings.sla.takedownSeconds, now, windowHours),
  ],
});

/** Sum of a counter over the days in [from, to]. */
export const sumBetween = (work: OpenWork, name: string, from: string, to: string): number =>
  work.days.reduce((sum, { day, counters }) => (day >= from && day <= to ? sum + (counters[name] ?? 0) : sum), 0);

export { CHANGED, nextDay, shiftDays, startOfDay };

/** The organization-level metrics summary for a caller: of the organization its `slug` names (see `insightsOrganization`). */
export const callerMetricsSummary = async (
  stores: InsightsStores,
  caller: Caller,
  { slug, ...query }: DateRange & { brandSlug?: string; slug?: string },
  today: string,
): Promise<MetricsSummary> =>
  metricsSummary(stores, await insightsOrganization(stores.directory, caller, slug, 'metrics'), query, today);

/** The threats found for a caller: in the organization its `slug` names (see `insightsOrganization`). */
export const callerFoundThreats = async (
  stores: InsightsStores,
  caller: Caller,
  { slug, ...range }: DateRange & { slug?: string },
  today: string,
) => foundThreats(stores, await insightsOrganization(stores.directory, caller, slug, 'metrics'), range, today);
