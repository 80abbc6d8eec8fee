import * as v from 'valibot';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.ts';
import { jsonSchemaTwin } from '../../schema-twin.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import { BOUND_PATTERN, dayOfBound, nextDay } from '../core/dates.ts';
import { COUNTER, DETECTIONS, THREAT_PREFIX, threatCounter } from './counters.ts';
import type { BreakdownMetric, Dimension, HistogramRef, MedianWindow } from './insight-counters.ts';

/** The functions read the current UTC day through here. */
export { utcDay } from '../core/dates.ts';

const BRANDS_METRICS_FLAG = 'brands-metrics';
const INVALID_DATE = 'Invalid date format. Use ISO 8601 format.';
const NO_METRICS_ACCESS = 'You do not have permission to access metrics for this organization';

/** Query or body value of `startDate` / `endDate`; the output is the UTC day it covers. */
export const metricsDate = v.pipe(
  v.string(INVALID_DATE),
  v.check((text) => dayOfBound(text) !== undefined, INVALID_DATE),
  jsonSchemaTwin({ pattern: BOUND_PATTERN, examples: ['2026-01-01', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00'] }),
  v.transform((text) => dayOfBound(text) as string),
);

export type DayCounters = { day: string; counters: Readonly<Record<string, number>> };
/** An organization's metrics counters, a brand's (`brandSlug`), or the organization's insight counters (`insights`). */
export type MetricsScope = { orgId: string; brandSlug?: string; insights?: true };

export interface MetricsStore {
  /** The scope's day items from `from` (or its first one) to `to`, inclusive and ascending. */
  days(scope: MetricsScope, from: string | undefined, to: string): Promise<DayCounters[]>;
  /**
   * The scope's counters summed over `from` (or its first day) to `to`, inclusive; of the insight
   * counters (`insights`), the breakdowns and the histograms' group counts only (their buckets are
   * read by `medianWindows`).
   */
  sums(
    scope: MetricsScope,
    from: string | undefined,
    to: string,
    /** Of the insight counters, only this breakdown's need be summed. */
    breakdown?: { metric: BreakdownMetric; dimension: Dimension },
  ): Promise<Record<string, number>>;
  /**
   * Of the organization's insight histograms, what each one's median over `from` (or its first day)
   * to `to` needs, in the order asked.
   */
  medianWindows(
    orgId: string,
    from: string | undefined,
    to: string,
    histograms: readonly HistogramRef[],
  ): Promise<MedianWindow[]>;
  /** Whether a day before `day` has counters that are not all zero. */
  hasActivityBefore(scope: MetricsScope, day: string): Promise<boolean>;
}

export type MetricsDirectory = Pick<DirectoryStore, 'findOrganization' | 'findBrand' | 'findMembership'>;
export type MetricsStores = { metrics: MetricsStore; directory: MetricsDirectory };

/** Days as `YYYY-MM-DD` UTC, already validated (see `metricsDate`). */
export type MetricsQuery = { brandSlug?: string; startDate?: string; endDate?: string };

export type Metrics = {
  metrics: {
    reports: number;
    newThreats: number;
    threatsWatchlisted: number;
    takedownsFiled: number;
    takedownsCompleted: number;
    domainThreats: number;
    twitterThreats: number;
    telegramThreats: number;
    otherThreats: number;
  };
  blockedByType: { type: string; count: number }[];
  blockedByDay: { date: string; count: number }[];
};

export type LegacyMetrics = {
  metrics: Metrics['metrics'] & {
    reportsCount: number;
    threatsBlockedCount: number;
    threatsBlockedByAssetType: { assetType: string; count: number }[];
    domainsBlockedCount: number;
    totalTakedownsFiledCount: number;
    totalTakedownsCompletedCount: number;
    totalDetections: number;
  };
  blockedByType: Metrics['blockedByType'];
  blockedByDay: Metrics['blockedByDay'];
};

/** The caller of the deprecated endpoint, as its API key identifies it. */
export type MetricsCaller = { kind: 'organization'; orgId: string } | { kind: 'user'; userId: string };

const blockedOn = (counters: Readonly<Record<string, number>>): number => {
  let blocked = 0;
  for (const [name, value] of Object.entries(counters)) if (name.startsWith(THREAT_PREFIX)) blocked += value;
  return blocked;
};

/** A day with counts of the metrics' own (detections are counted beside them, and are not). */
const isActive = ({ counters }: DayCounters): boolean =>
  Object.entries(counters).some(([name, value]) => name !== DETECTIONS && value !== 0);

const scopeOf = async (directory: MetricsDirectory, orgId: string, brandSlug?: string): Promise<MetricsScope> => {
  if (brandSlug === undefined) return { orgId };
  const organization = await directory.findOrganization(orgId);
  if (!organization?.featureFlags.includes(BRANDS_METRICS_FLAG)) {
    throw new ForbiddenError('Brand metrics are not enabled for this organization');
  }
  if (!(await directory.findBrand(orgId, brandSlug))) throw new NotFoundError('Brand not found');
  return { orgId, brandSlug };
};

/**
 * The first day of the dense series: the later of `start` and the scope's first active day.
 * The range read tells it without another read unless the range opens on an inactive day.
 */
const seriesStart = async (
  store: MetricsStore,
  scope: MetricsScope,
  start: string | undefined,
  days: DayCounters[],
): Promise<string | undefined> => {
  const firstActive = days.find(isActive)?.day;
  if (start === undefined || firstActive === start) return firstActive;
  return (await store.hasActivityBefore(scope, start)) ? start : firstActive;
};

const summarize = (days: DayCounters[], from: string | undefined, to: string, brandLevel: boolean): Metrics => {
  const totals = new Map<string, number>();
  const blockedByDate = new Map<string, number>();
  for (const { day, counters } of days) {
    for (const [name, value] of Object.entries(counters)) totals.set(name, (totals.get(name) ?? 0) + value);
    blockedByDate.set(day, blockedOn(counters));
  }
  const total = (name: string) => totals.get(name) ?? 0;
  const blockedByType = [...totals]
    .filter(([name, count]) => name.startsWith(THREAT_PREFIX) && count > 0)
    .map(([name, count]) => ({ type: name.slice(THREAT_PREFIX.length), count }))
    .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
  const typeCount = (type: AssetType) => total(threatCounter(type));
  const newThreats = blockedByType.reduce((sum, entry) => sum + entry.count, 0);
  const domainThreats = typeCount('URL') + typeCount('PAGE');
  const twitterThreats = typeCount('TWITTER');
  const telegramThreats = typeCount('TELEGRAM');
  const blockedByDay: Metrics['blockedByDay'] = [];
  if (from !== undefined) {
    for (let date = from; date <= to; date = nextDay(date)) {
      blockedByDay.push({ date, count: blockedByDate.get(date) ?? 0 });
    }
  }
  return {
    metrics: {
      reports: total(COUNTER.reports),
      newThreats,
      threatsWatchlisted: brandLevel ? 0 : total(COUNTER.watchlisted),
      takedownsFiled: total(COUNTER.takedownsFiled),
      takedownsCompleted: total(COUNTER.takedownsCompleted),
      domainThreats,
      twitterThreats,
      telegramThreats,
      otherThreats: newThreats - domainThreats - twitterThreats - telegramThreats,
    },
    blockedByType,
    blockedByDay,
  };
};

/**
 * Metrics of an organization (or one of its brands) over whole UTC days, from one Query of
 * its day counters. Days after `today` are never counted, so every total equals the sum of
 * the dense `blockedByDay` series.
 */
export const organizationMetrics = async (
  stores: MetricsStores,
  orgId: string,
  query: MetricsQuery,
  today: string,
): Promise<Metrics> => {
  const { startDate, endDate } = query;
  if (startDate !== undefined && endDate !== undefined && startDate > endDate) {
    throw new BadRequestError('startDate must not be after endDate', {
      issues: [{ message: 'startDate must not be after endDate', path: 'startDate' }],
    });
  }
  const scope = await scopeOf(stores.directory, orgId, query.brandSlug);
  const brandLevel = scope.brandSlug !== undefined;
  const end = endDate !== undefined && endDate < today ? endDate : today;
  if (startDate !== undefined && startDate > end) return summarize([], undefined, end, brandLevel);
  const days = await stores.metrics.days(scope, startDate, end);
  return summarize(days, await seriesStart(stores.metrics, scope, startDate, days), end, brandLevel);
};

const assertMetricsAccess = async (
  directory: MetricsDirectory,
  caller: MetricsCaller,
  organizationSlug: string,
): Promise<void> => {
  const allowed =
    caller.kind === 'organization'
      ? caller.orgId === organizationSlug
      : (await directory.findMembership(caller.userId, organizationSlug))?.status === 'ACTIVE';
  if (!allowed) throw new ForbiddenError(NO_METRICS_ACCESS);
};

/** `POST /public/getOrganizationMetrics`: the same metrics, for a caller allowed to read them, plus the fields older clients read. */
export const legacyOrganizationMetrics = async (
  stores: MetricsStores,
  caller: MetricsCaller,
  query: MetricsQuery & { organizationSlug: string },
  today: string,
): Promise<LegacyMetrics> => {
  await assertMetricsAccess(stores.directory, caller, query.organizationSlug);
  const { metrics, blockedByType, blockedByDay } = await organizationMetrics(
    stores,
    query.organizationSlug,
    query,
    today,
  );
  return {
    metrics: {
      ...metrics,
      reportsCount: metrics.reports,
      threatsBlockedCount: metrics.newThreats,
      threatsBlockedByAssetType: blockedByType.map(({ type, count }) => ({ assetType: type, count })),
      domainsBlockedCount: metrics.domainThreats,
      totalTakedownsFiledCount: metrics.takedownsFiled,
      totalTakedownsCompletedCount: metrics.takedownsCompleted,
      totalDetections: metrics.reports + metrics.newThreats,
    },
    blockedByType,
    blockedByDay,
  };
};
