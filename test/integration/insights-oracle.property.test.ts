import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { gaugeSlot } from '../../shared/db/insight-items.ts';
import { key } from '../../shared/db/keys.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { openWorkRepository } from '../../shared/db/open-work-repository.ts';
import { effectiveSettings, HEALTHCHECK_KEYS } from '../../shared/domain/account/organization-settings.ts';
import type { AssetType } from '../../shared/domain/allowlist/asset-types.ts';
import type { Detection } from '../../shared/domain/detections/index.ts';
import { COUNTER_SHARDS } from '../../shared/domain/insights/counters.ts';
import { runHealthcheck } from '../../shared/domain/insights/healthchecks.ts';
import {
  BREAKDOWN_METRICS,
  type BreakdownMetric,
  bucketOf,
  CHANGED,
  OPEN,
} from '../../shared/domain/insights/insight-counters.ts';
import {
  foundThreats,
  metricsBreakdown,
  metricsSummary,
  openWork,
  queuesSnapshot,
} from '../../shared/domain/insights/insights.ts';
import { type ActivityChange, type ActivityRecord, applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('insights-oracle');
const activity = activityRepository(table.db, table.tableName);
const directory = directoryRepository(table.db, table.tableName);
const detectionStore = detectionRepository(table.db, table.tableName);
const stores = { metrics: metricsRepository(table.db, table.tableName), directory };

const BRANDS = ['alpha', 'beta', 'gamma'];
const TYPES: AssetType[] = ['URL', 'PAGE', 'TWITTER', 'TELEGRAM', 'ADDRESS'];
const PLATFORMS = [undefined, 'Discord', 'telegram', 'Not a key!'];
const BASE = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const TODAY = '2026-01-26';
const NOW = Date.parse('2026-01-26T12:00:00.000Z');
const day = (offset: number) => new Date(BASE + offset * DAY).toISOString().slice(0, 10);

const version = fc.record({
  brands: fc.subarray(BRANDS),
  createdAt: fc.integer({ min: 0, max: 22 * 24 * 60 }),
  updateGap: fc.integer({ min: 1, max: 3 * 24 * 60 }),
  threatStatus: fc.constantFrom('PENDING', 'BLOCKED', 'APPROVED', 'AUTO_APPROVED', 'REJECTED' as const),
  takedownStatus: fc.constantFrom('TODO', 'IN_PROGRESS', 'PENDING_INPUT', 'COMPLETED', 'CANCELLED' as const),
  assetType: fc.constantFrom(...TYPES),
  watchlisted: fc.boolean(),
  fromReport: fc.boolean(),
  platform: fc.constantFrom(...PLATFORMS),
  proposals: fc.array(fc.constantFrom('PENDING', 'APPROVED', 'REJECTED' as const), { maxLength: 4 }),
  deleted: fc.nat(5).map((n) => n === 0),
});
const recordSpec = fc.record({
  kind: fc.constantFrom('report', 'threat', 'takedown' as const),
  keepCreatedAt: fc.boolean(),
  versions: fc.array(version, { minLength: 1, maxLength: 4 }),
});
type RecordSpec = typeof recordSpec extends fc.Arbitrary<infer T> ? T : never;
/** Detections of an asset by a source; a second one of the same pair (or a retry) is a duplicate, never counted. */
const detectionSpec = fc.record({
  createdAt: fc.integer({ min: -2 * 24 * 60, max: 24 * 24 * 60 }),
  source: fc.constantFrom('DNS_TWIST', 'CERTSTREAM' as const),
  assetId: fc.integer({ min: 1, max: 3 }),
  assetType: fc.constantFrom('URL', 'TWITTER' as const),
  brands: fc.subarray(BRANDS),
  retried: fc.boolean(),
});
type DetectionSpec = typeof detectionSpec extends fc.Arbitrary<infer T> ? T : never;

const detectionOf = (orgId: string, spec: DetectionSpec, index: number): Detection => ({
  id: 9_000_000 + index,
  orgId,
  source: spec.source,
  configId: null,
  threatContent: `lure-${spec.assetId}.example`,
  createdAt: new Date(BASE + spec.createdAt * 60_000).toISOString(),
  score: 0.9,
  reason: null,
  reportStatus: 'NOT_REPORTED',
  reportedAt: null,
  asset: { id: spec.assetId, content: `lure-${spec.assetId}.example`, type: spec.assetType, status: 'UNKNOWN' },
  brands: spec.brands.map((slug, i) => ({ id: i + 1, name: slug, slug })),
});

const changesOf = (orgId: string, specs: RecordSpec[]): ActivityChange[][] =>
  specs.map((spec, index) => {
    let updated = 0;
    const firstCreated = spec.versions[0]?.createdAt ?? 0;
    return spec.versions.map((v): ActivityChange => {
      const created = spec.keepCreatedAt ? firstCreated : v.createdAt;
      updated = Math.max(created, updated) + v.updateGap;
      const base = {
        organization: orgId,
        id: `${spec.kind}-${index}`,
        brands: v.brands,
        createdAt: new Date(BASE + created * 60_000).toISOString(),
        updatedAt: new Date(BASE + updated * 60_000).toISOString(),
        deleted: v.deleted,
      };
      if (spec.kind === 'report') {
        return {
          ...base,
          kind: 'report',
          ...(v.platform === undefined ? {} : { reporter: { externalReporter: { platform: v.platform } } }),
          proposals: v.proposals.map((reviewStatus, i) => ({
            id: i + 1,
            assetId: i + 1,
            content: `p${i}.example`,
            type: 'URL' as const,
            reviewStatus,
          })),
        };
      }
      if (spec.kind === 'takedown') {
        return { ...base, kind: 'takedown', status: v.takedownStatus, ...(v.fromReport ? { threatId: 't' } : {}) };
      }
      return {
        ...base,
        kind: 'threat',
        content: `${orgId}-${index}.example`,
        assetType: v.assetType,
        status: v.threatStatus,
        watchlisted: v.watchlisted,
        ...(v.fromReport ? { reportId: `r-${index}` } : {}),
      };
    });
  });

/* The brute force: every figure recomputed from the stored records, with the rules written out again. */

const COUNTED = ['BLOCKED', 'APPROVED', 'AUTO_APPROVED'];
const GROUPS: Record<string, BreakdownMetric> = {
  URL: 'domainThreats',
  PAGE: 'domainThreats',
  TWITTER: 'twitterThreats',
  TELEGRAM: 'telegramThreats',
};
const stage = (status: string) => ({ FILED: 'TODO', FAILED: 'CANCELLED' })[status] ?? status;
const minutes = (from: string, to: string) => Math.floor((Date.parse(to) - Date.parse(from)) / 60_000);
const inRange = (d: string, from: string | undefined, to: string) => (from === undefined || d >= from) && d <= to;

const metricsOf = (r: ActivityRecord): BreakdownMetric[] => {
  if (r.kind === 'report') return ['reports'];
  if (r.kind === 'takedown')
    return stage(r.status) === 'COMPLETED' ? ['takedownsFiled', 'takedownsCompleted'] : ['takedownsFiled'];
  const found: BreakdownMetric[] = r.watchlisted ? ['threatsWatchlisted'] : [];
  if (COUNTED.includes(r.status)) found.push('newThreats', GROUPS[r.assetType] ?? 'otherThreats');
  return found;
};
const keyOf = (r: ActivityRecord, by: 'type' | 'source' | 'brand' | 'day'): string => {
  if (by === 'day') return r.createdAt.slice(0, 10);
  if (by === 'brand') return r.brands[0] ?? 'NONE';
  if (by === 'type') return r.kind === 'report' ? 'NONE' : (r.assetType ?? 'NONE');
  if (r.kind === 'report') {
    const platform = r.reporter?.externalReporter?.platform?.trim().toLowerCase();
    if (!platform) return 'direct';
    return /^[a-z0-9_-]{1,32}$/.test(platform) ? platform : 'other';
  }
  if (r.kind === 'threat') return r.reportId === undefined ? 'ingest' : 'report';
  return r.threatId === undefined ? 'ingest' : 'review';
};
const lowerMedian = (values: number[]) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const exact = sorted[Math.ceil(sorted.length / 2) - 1] as number;
  const bucket = bucketOf(exact);
  // The bucket's own contract, checked here so the expectation cannot drift with it: within 5 %.
  expect(bucket).toBeLessThanOrEqual(exact);
  expect(exact).toBeLessThan(bucket * 1.05 + 1);
  return bucket;
};

const detectionsIn = (detections: Detection[], from: string | undefined, to: string, brand?: string) =>
  detections.filter(
    (d) =>
      inRange(d.createdAt.slice(0, 10), from, to) &&
      (brand === undefined || d.brands.some(({ slug }) => slug === brand)),
  );

const expectedSummary = (
  records: ActivityRecord[],
  detections: Detection[],
  from: string | undefined,
  to: string,
  brand?: string,
) => {
  const all = records.filter((r) => inRange(r.createdAt.slice(0, 10), from, to));
  const scoped = brand === undefined ? all : all.filter((r) => r.brands.includes(brand));
  // Brand metrics count takedowns on the day of their last update, and no watchlisted threats.
  const brandTakedowns = records.filter(
    (r) =>
      r.kind === 'takedown' &&
      brand !== undefined &&
      r.brands.includes(brand) &&
      inRange(r.updatedAt.slice(0, 10), from, to),
  );
  const counting = (metric: BreakdownMetric) => {
    if (brand !== undefined && (metric === 'takedownsFiled' || metric === 'takedownsCompleted')) {
      return brandTakedowns.filter((r) => metricsOf(r).includes(metric)).length;
    }
    if (brand !== undefined && metric === 'threatsWatchlisted') return 0;
    return scoped.filter((r) => metricsOf(r).includes(metric)).length;
  };
  const blocked = scoped.flatMap((r) =>
    r.kind === 'threat' &&
    COUNTED.includes(r.status) &&
    r.blockedAt !== undefined &&
    minutes(r.createdAt, r.blockedAt) >= 0
      ? [minutes(r.createdAt, r.blockedAt)]
      : [],
  );
  const takenDown = scoped.flatMap((r) => {
    if (r.kind !== 'takedown' || stage(r.status) !== 'COMPLETED') return [];
    const m = minutes(r.createdAt, r.updatedAt);
    return m >= 0 && m <= 40 * 24 * 60 ? [m] : [];
  });
  const toTakedown = lowerMedian(takenDown);
  return {
    ...Object.fromEntries(BREAKDOWN_METRICS.map((metric) => [metric, counting(metric)])),
    detections: detectionsIn(detections, from, to, brand).length,
    medianTimeToBlockMinutes: lowerMedian(blocked),
    medianTimeToTakedownHours: toTakedown === null ? null : Math.round((toTakedown / 60) * 100) / 100,
  };
};

const detectionKey = (d: Detection, by: 'type' | 'source' | 'brand' | 'day'): string => {
  if (by === 'day') return d.createdAt.slice(0, 10);
  if (by === 'brand') return d.brands[0]?.slug ?? 'NONE';
  if (by === 'type') return d.asset.type;
  return d.source.toLowerCase();
};

const expectedRows = (
  records: ActivityRecord[],
  detections: Detection[],
  metric: BreakdownMetric,
  by: 'type' | 'source' | 'brand' | 'day',
  from: string | undefined,
  to: string,
) => {
  const counts = new Map<string, number>();
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const r of records) {
    if (!inRange(r.createdAt.slice(0, 10), from, to) || !metricsOf(r).includes(metric)) continue;
    count(keyOf(r, by));
  }
  if (metric === 'detections') for (const d of detectionsIn(detections, from, to)) count(detectionKey(d, by));
  const rows = [...counts].map(([key, value]) => ({ key, value }));
  return by === 'day'
    ? rows.sort((a, b) => (a.key < b.key ? -1 : 1))
    : rows.sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : 1));
};

const ageDays = (d: string) => Math.floor((NOW - Date.parse(`${d}T00:00:00Z`)) / DAY);
const grade = (value: number, t: { warn: number; fail: number }) =>
  value >= t.fail ? 'fail' : value >= t.warn ? 'warn' : 'ok';

const expectedOpenWork = (records: ActivityRecord[]) => {
  const pending = records.flatMap((r) =>
    r.kind === 'report'
      ? (r.proposals ?? []).filter((p) => p.reviewStatus === 'PENDING').map(() => r.createdAt.slice(0, 10))
      : [],
  );
  const takedowns = (s: string) =>
    records.flatMap((r) => (r.kind === 'takedown' && stage(r.status) === s ? [r.createdAt.slice(0, 10)] : []));
  return { pending, todo: takedowns('TODO'), inProgress: takedowns('IN_PROGRESS') };
};

/** Every open-work gauge by day, nonzero only: what the gauge items must hold, read back whole. */
const expectedGaugesByDay = (records: ActivityRecord[]) => {
  const open = expectedOpenWork(records);
  const cancelled = records.flatMap((r) =>
    r.kind === 'takedown' && stage(r.status) === 'CANCELLED' ? [r.updatedAt.slice(0, 10)] : [],
  );
  const byDay = new Map<string, Record<string, number>>();
  const count = (gauge: string, days: string[]) => {
    for (const d of days) {
      const counters = byDay.get(d) ?? {};
      counters[gauge] = (counters[gauge] ?? 0) + 1;
      byDay.set(d, counters);
    }
  };
  count(OPEN.pendingProposals, open.pending);
  count(OPEN.takedownsTodo, open.todo);
  count(OPEN.takedownsInProgress, open.inProgress);
  count(CHANGED.takedownsCancelled, cancelled);
  return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([d, counters]) => ({ day: d, counters }));
};

/** The items of every shard of an organization's partition (month items, or gauge items). */
const partitionItems = async (partition: (shard: number) => string) => {
  const items: Record<string, unknown>[] = [];
  for (let shard = 0; shard < COUNTER_SHARDS; shard++) {
    const { Items = [] } = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': partition(shard) },
        ConsistentRead: true,
      }),
    );
    items.push(...Items);
  }
  return items;
};

const queue = (name: string, days: string[], sla: number) => {
  const sorted = [...days].sort();
  const seconds = (d: string | undefined) =>
    d === undefined ? null : ageDays(d) * 86_400 + Math.floor((NOW % DAY) / 1000);
  const oldest = seconds(sorted[0]);
  return {
    name,
    size: sorted.length,
    oldestAgeSeconds: oldest,
    p50AgeSeconds: seconds(sorted[Math.ceil(sorted.length / 2) - 1]),
    slaSeconds: sla,
    breaching: oldest !== null && oldest > sla,
    buckets: [
      ['<1d', 0, 1],
      ['1-3d', 1, 3],
      ['3-7d', 3, 7],
      ['7-14d', 7, 14],
      ['>14d', 14, Number.POSITIVE_INFINITY],
    ].map(([label, from, to]) => ({
      label,
      count: sorted.filter((d) => ageDays(d) >= (from as number) && ageDays(d) < (to as number)).length,
    })),
    // The default window: a week.
    staleCount: sorted.filter((d) => ageDays(d) >= 7).length,
  };
};

const rangeSpec = fc.record({
  startDate: fc.option(fc.integer({ min: -3, max: 30 }), { nil: undefined }),
  length: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
});
const settingsSpec = fc.record({
  contactUrl: fc.option(fc.constantFrom('https://t.me/acme', ' '), { nil: undefined }),
  backlog: fc.option(fc.record({ warn: fc.integer({ min: 0, max: 3 }), fail: fc.integer({ min: 3, max: 6 }) }), {
    nil: undefined,
  }),
  offDays: fc.option(fc.integer({ min: 0, max: 90 }), { nil: undefined }),
});

let run = 0;

describe('insights on DynamoDB Local', () => {
  it('gives every v2 metric, breakdown, queue and healthcheck equal to a brute-force computation over the records', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordSpec, { minLength: 1, maxLength: 8 }).chain((specs) => {
          const versionCount = specs.reduce((sum, spec) => sum + spec.versions.length, 0);
          const deliveries = [...Array(2 * versionCount).keys()].map((i) => i % versionCount);
          return fc.record({
            specs: fc.constant(specs),
            order: fc.shuffledSubarray(deliveries, { minLength: deliveries.length }),
            concurrency: fc.integer({ min: 1, max: 4 }),
            ranges: fc.array(rangeSpec, { minLength: 1, maxLength: 2 }),
            detections: fc.array(detectionSpec, { maxLength: 5 }),
            settings: settingsSpec,
          });
        }),
        async ({ specs, order, concurrency, ranges, detections: detectionSpecs, settings: chosen }) => {
          const orgId = `insights-${++run}`;
          await directory.putOrganization({ slug: orgId, name: orgId, featureFlags: ['brands-metrics'] });
          for (const slug of BRANDS) await directory.putBrand({ orgId, slug, name: slug });
          const versions = changesOf(orgId, specs);
          const stream = order.map((index) => versions.flat()[index] as ActivityChange);
          for (let i = 0; i < stream.length; i += concurrency) {
            await Promise.all(
              stream.slice(i, i + concurrency).map((change) => applyActivity(suffixes, activity, change)),
            );
          }
          const stored = await Promise.all(versions.map((history) => activity.find(history[0] as ActivityChange)));
          const records = stored.filter((r): r is ActivityRecord => r !== undefined && !r.deleted);
          const detections: Detection[] = [];
          for (const [index, spec] of detectionSpecs.entries()) {
            const detection = detectionOf(orgId, spec, index);
            const outcome = await detectionStore.record(detection);
            if (spec.retried) expect(await detectionStore.record(detection)).not.toBe('recorded');
            const first = !detections.some((d) => d.source === spec.source && d.asset.id === spec.assetId);
            expect(outcome).toBe(first ? 'recorded' : 'duplicate');
            if (first) detections.push(detection);
          }

          for (const { startDate, length } of [{ startDate: undefined, length: undefined }, ...ranges]) {
            const from = startDate === undefined ? undefined : day(startDate);
            const endDate = length === undefined ? undefined : day((startDate ?? 0) + length);
            const to = endDate !== undefined && endDate < TODAY ? endDate : TODAY;
            const range = { startDate: from, endDate };
            for (const brandSlug of [undefined, ...BRANDS]) {
              expect(await metricsSummary(stores, orgId, { ...range, brandSlug }, TODAY)).toEqual(
                expectedSummary(records, detections, from, to, brandSlug),
              );
            }
            for (const metric of BREAKDOWN_METRICS) {
              for (const by of ['day', 'type', 'source', 'brand'] as const) {
                expect((await metricsBreakdown(stores, orgId, { ...range, by, metric }, TODAY)).rows).toEqual(
                  expectedRows(records, detections, metric, by, from, to),
                );
              }
            }
            if (from !== undefined) {
              const end = endDate ?? TODAY;
              const span = Math.round((Date.parse(end) - Date.parse(from)) / DAY) + 1;
              const before = new Date(Date.parse(from) - span * DAY).toISOString().slice(0, 10);
              const newThreats = (a: string, b: string) =>
                records.filter(
                  (r) =>
                    metricsOf(r).includes('newThreats') && inRange(r.createdAt.slice(0, 10), a, b < TODAY ? b : TODAY),
                ).length;
              const dayBefore = new Date(Date.parse(from) - DAY).toISOString().slice(0, 10);
              expect(await foundThreats(stores, orgId, range, TODAY)).toEqual({
                found: from > end ? 0 : newThreats(from, end),
                previousPeriod: from > end ? 0 : newThreats(before, dayBefore),
                startDate: from,
                endDate: end,
              });
            }
          }

          const input = {
            ...(chosen.contactUrl === undefined ? {} : { contactUrl: chosen.contactUrl }),
            ...(chosen.backlog === undefined ? {} : { healthcheckThresholds: { 'reviewing.backlog': chosen.backlog } }),
            services: {
              takedowns: {
                active: true,
                automated: chosen.offDays === undefined,
                ...(chosen.offDays === undefined
                  ? {}
                  : { automationOffSince: new Date(NOW - chosen.offDays * DAY).toISOString() }),
              },
            },
          };
          const settings = effectiveSettings(input);
          const work = await openWork(openWorkRepository(table.db, table.tableName), orgId);
          const open = expectedOpenWork(records);
          // Every gauge of every day, exactly; held by the gauge items alone, which hold nothing else.
          expect(
            work.days
              .map(({ day: d, counters }) => ({
                day: d,
                counters: Object.fromEntries(Object.entries(counters).filter(([, value]) => value !== 0)),
              }))
              .filter(({ counters }) => Object.keys(counters).length > 0),
          ).toEqual(expectedGaugesByDay(records));
          const gaugeItems = await partitionItems((shard) => key.insightGauges(orgId, '', shard).PK);
          for (const { PK: _pk, SK: _sk, ...gauges } of gaugeItems) {
            expect(Object.keys(gauges).every((name) => gaugeSlot(name) !== undefined)).toBe(true);
            // All 31 slots of each gauge the month counts.
            expect(Object.keys(gauges).length % 31).toBe(0);
          }
          for (const month of await partitionItems((shard) => key.insightMonth(orgId, '', shard).PK)) {
            expect(Object.keys(month).filter((name) => name.includes('@') && !name.startsWith('i.tt'))).toEqual([]);
          }
          expect(queuesSnapshot(work, settings, NOW)).toEqual({
            windowHours: 168,
            queues: [
              queue('review', open.pending, 604_800),
              queue('takedown', [...open.todo, ...open.inProgress], 604_800),
            ],
          });
          const oldest = (days: string[]) => (days.length === 0 ? 0 : Math.max(...days.map(ageDays)));
          const from = new Date(NOW - 6 * DAY).toISOString().slice(0, 10);
          const cancelled = records.filter(
            (r) =>
              r.kind === 'takedown' &&
              stage(r.status) === 'CANCELLED' &&
              inRange(r.updatedAt.slice(0, 10), from, TODAY),
          ).length;
          const thresholds = settings.thresholds;
          const values: Record<string, number> = {
            'reviewing.backlog': open.pending.length,
            'reviewing.old-proposals': oldest(open.pending),
            'takedowns.todo-volume': open.todo.length,
            'takedowns.in-progress-volume': open.inProgress.length,
            'takedowns.stale-in-progress': oldest(open.inProgress),
            'takedowns.cancelled-count': cancelled,
            'takedowns.automation-off': chosen.offDays ?? 0,
            'assets.dead-asset-spike': 0,
            'detections.silent-configs': 0,
            'organization.missing-contact-url': chosen.contactUrl === 'https://t.me/acme' ? 0 : 1,
          };
          const inputs = {
            work,
            settings,
            detections: { enabled: 0, silent: [], minResults: 1, lookbackHours: 168 },
            offenders: { proposals: async () => [], takedowns: async () => [] },
            now: NOW,
            today: TODAY,
          };
          const checks = await Promise.all(HEALTHCHECK_KEYS.map((check) => runHealthcheck(check, inputs)));
          expect(checks.map(({ key, status, value }) => ({ key, status, value }))).toEqual(
            Object.entries(values).map(([key, value]) => ({
              key,
              status:
                key === 'assets.dead-asset-spike' ? 'ok' : grade(value, thresholds[key as keyof typeof thresholds]),
              value,
            })),
          );
        },
      ),
      { numRuns: 20 },
    );
  }, 300_000);
});
