import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import type { AssetType } from '../../shared/domain/allowlist/asset-types.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { COUNTER_SHARDS } from '../../shared/domain/insights/counters.ts';
import { organizationMetrics } from '../../shared/domain/insights/metrics.ts';
import { type ActivityChange, applyActivity, TAKEDOWN_STATUSES } from '../../shared/domain/lifecycle/activity.ts';
import { createReport } from '../../shared/domain/lifecycle/reports.ts';
import { brandIdOf, reviewProposal } from '../../shared/domain/lifecycle/reviews.ts';
import { AppError } from '../../shared/errors.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { recount } from '../unit/metrics/recount.ts';

const table = await createTestTable('activity-oracle');
const activity = activityRepository(table.db, table.tableName);
const directory = directoryRepository(table.db, table.tableName);
const stores = { metrics: metricsRepository(table.db, table.tableName), directory };

const BRANDS = ['alpha', 'beta', 'gamma'];
const TYPES: AssetType[] = ['URL', 'PAGE', 'TWITTER', 'TELEGRAM', 'ADDRESS', 'DISCORD'];
/** Content variants per organization, so runs never share a check-index entry. */
const CONTENTS = [
  (org: string) => `${org}.a.example`,
  (org: string) => `${org}.b.example/login`,
  (org: string) => `https://${org}.c.example`,
  (org: string) => `www.${org}.d.example/`,
];
const BASE = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const TODAY = '2026-01-26';
const day = (offset: number) => new Date(BASE + offset * DAY).toISOString().slice(0, 10);

const state = fc.record({
  brands: fc.subarray(BRANDS),
  createdAt: fc.integer({ min: 0, max: 22 * 24 * 60 }),
  /** Minutes after the later of createdAt and the previous version (takedowns move brand days with it). */
  updateGap: fc.integer({ min: 1, max: 3 * 24 * 60 }),
  threatStatus: fc.constantFrom('PENDING', 'BLOCKED', 'APPROVED', 'AUTO_APPROVED', 'REJECTED' as const),
  takedownStatus: fc.constantFrom(...TAKEDOWN_STATUSES),
  content: fc.nat(CONTENTS.length - 1),
  assetType: fc.constantFrom(...TYPES),
  watchlisted: fc.boolean(),
  deleted: fc.nat(4).map((n) => n === 0),
});

const recordSpec = fc.record({
  kind: fc.constantFrom('report', 'threat', 'takedown' as const),
  keepCreatedAt: fc.boolean(),
  versions: fc.array(state, { minLength: 1, maxLength: 4 }),
});

const range = fc.record({
  startDate: fc.option(fc.integer({ min: -3, max: 30 }), { nil: undefined }),
  length: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
});

let run = 0;

/** Every version of every record, as the changes a producer would emit. */
type RecordSpec = typeof recordSpec extends fc.Arbitrary<infer T> ? T : never;

const changesOf = (orgId: string, specs: RecordSpec[]): ActivityChange[][] =>
  specs.map((spec, index) => {
    let updated = 0;
    const firstCreated = spec.versions[0]?.createdAt ?? 0;
    return spec.versions.map((version) => {
      const created = spec.keepCreatedAt ? firstCreated : version.createdAt;
      updated = Math.max(created, updated) + version.updateGap;
      const base = {
        organization: orgId,
        id: `${spec.kind}-${index}`,
        brands: version.brands,
        createdAt: new Date(BASE + created * 60_000).toISOString(),
        updatedAt: new Date(BASE + updated * 60_000).toISOString(),
        deleted: version.deleted,
      };
      if (spec.kind === 'report') return { ...base, kind: 'report' };
      if (spec.kind === 'takedown') return { ...base, kind: 'takedown', status: version.takedownStatus };
      return {
        ...base,
        kind: 'threat',
        content: (CONTENTS[version.content] as (org: string) => string)(orgId),
        assetType: version.assetType,
        status: version.threatStatus,
        watchlisted: version.watchlisted,
      };
    });
  });

const checkEntry = async (checkKey: string) => {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: key.checkEntry(checkKey), ConsistentRead: true }),
  );
  return { block: (Item?.block as number | undefined) ?? 0, watch: (Item?.watch as number | undefined) ?? 0 };
};

const negativeCounters = async (orgId: string) => {
  // Every shard of the organization's and its brands' day counters.
  const partitions = Array.from({ length: COUNTER_SHARDS }, (_, shard) => [
    key.orgDay(orgId, '', shard).PK,
    ...BRANDS.map((brand) => key.brandDay(orgId, brand, '', shard).PK),
  ]).flat();
  const negatives: string[] = [];
  for (const pk of partitions) {
    const { Items = [] } = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    );
    for (const item of Items) {
      for (const [name, value] of Object.entries(item)) {
        if (typeof value === 'number' && value < 0) negatives.push(`${pk} ${item.SK} ${name}=${value}`);
      }
    }
  }
  return negatives;
};

describe('activity ingestion on DynamoDB Local', () => {
  it('gives metrics equal to a recount of the final records after duplicated, reordered and redelivered changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordSpec, { minLength: 1, maxLength: 7 }).chain((specs) => {
          const versionCount = specs.reduce((sum, spec) => sum + spec.versions.length, 0);
          // Every version is delivered twice, in any order.
          const deliveries = [...Array(2 * versionCount).keys()].map((i) => i % versionCount);
          return fc.record({
            specs: fc.constant(specs),
            order: fc.shuffledSubarray(deliveries, { minLength: deliveries.length }),
            concurrency: fc.integer({ min: 1, max: 4 }),
            ranges: fc.array(range, { minLength: 1, maxLength: 3 }),
          });
        }),
        async ({ specs, order, concurrency, ranges }) => {
          const orgId = `oracle-${++run}`;
          const versions = changesOf(orgId, specs);
          const stream = order.map((index) => versions.flat()[index] as ActivityChange);
          await directory.putOrganization({ slug: orgId, name: orgId, featureFlags: ['brands-metrics'] });
          for (const slug of BRANDS) await directory.putBrand({ orgId, slug, name: slug });

          for (let i = 0; i < stream.length; i += concurrency) {
            await Promise.all(
              stream.slice(i, i + concurrency).map((change) => applyActivity(suffixes, activity, change)),
            );
          }

          const finals = versions.map((history) => history[history.length - 1] as ActivityChange);
          for (const { startDate, length } of [{ startDate: undefined, length: undefined }, ...ranges]) {
            const query = {
              startDate: startDate === undefined ? undefined : day(startDate),
              endDate: length === undefined ? undefined : day((startDate ?? 0) + length),
            };
            for (const brandSlug of [undefined, ...BRANDS]) {
              const actual = await organizationMetrics(stores, orgId, { ...query, brandSlug }, TODAY);
              expect(actual).toEqual(recount(finals, { orgId, brandSlug }, query, TODAY));
            }
          }

          for (const content of CONTENTS) {
            for (const type of TYPES) {
              const checkKey = entryKeyOf(suffixes, content(orgId), type) as string;
              const counted = finals.filter(
                (r) =>
                  r.kind === 'threat' &&
                  !r.deleted &&
                  ['BLOCKED', 'APPROVED', 'AUTO_APPROVED'].includes(r.status) &&
                  entryKeyOf(suffixes, r.content, r.assetType) === checkKey,
              );
              expect(await checkEntry(checkKey)).toEqual({
                block: counted.length,
                watch: counted.filter((r) => r.kind === 'threat' && r.watchlisted).length,
              });
            }
          }
          expect(await negativeCounters(orgId)).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });
});

/** A content pool per organization (four shapes, two variants each), each with the type detection gives it. */
const REPORTED = [0, 1].flatMap((variant) => [
  { content: (org: string) => `${org}.r${variant}.example`, type: 'URL' as const },
  { content: (org: string) => `https://${org}.s${variant}.example/login`, type: 'URL' as const },
  { content: (org: string) => `https://x.com/${org.replace(/-/g, '_')}_${variant}`, type: 'TWITTER' as const },
  {
    content: (org: string) => `0x${org.replace(/\D/g, '').padStart(8, '0')}${String(variant).repeat(32)}`,
    type: 'ADDRESS' as const,
  },
]);

const reportSpec = fc.record({
  createdAt: fc.integer({ min: 0, max: 22 * 24 * 60 }),
  contents: fc.uniqueArray(fc.nat(REPORTED.length - 1), { minLength: 1, maxLength: 3 }),
});
const decisionSpec = fc.record({
  decision: fc.constantFrom('APPROVE', 'REJECT', 'WATCHLIST', 'NONE' as const),
  brand: fc.option(fc.constantFrom(...BRANDS), { nil: undefined }),
  /** Minutes after the report when the review happens. */
  after: fc.integer({ min: 1, max: 3 * 24 * 60 }),
});

describe('the threat lifecycle on DynamoDB Local', () => {
  it('gives metrics and check entries equal to a recount after reordered, redelivered and concurrent reviews', async () => {
    const lifecycle = {
      store: activity,
      verdicts: checkIndexRepository(table.db, table.tableName, { ttlMs: 0 }),
      directory,
      ignoredHosts: [],
      dailyLimit: 0,
      suffixes,
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ report: reportSpec, decisions: fc.array(decisionSpec, { minLength: 3, maxLength: 3 }) }), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.integer({ min: 1, max: 4 }),
        fc.infiniteStream(fc.nat()),
        async (reports, concurrency, shuffle) => {
          const orgId = `lifecycle-${++run}`;
          await directory.putOrganization({ slug: orgId, name: orgId, featureFlags: ['brands-metrics'] });
          for (const slug of BRANDS) await directory.putBrand({ orgId, slug, name: slug });

          const finals = new Map<string, ActivityChange>();
          const reviews: {
            proposal: ActivityChange & { kind: 'threat' };
            decision: (typeof reports)[number]['decisions'][number];
            at: number;
            reportId: string;
          }[] = [];
          for (const { report, decisions } of reports) {
            const at = BASE + report.createdAt * 60_000;
            const assets = report.contents.map((i) => ({
              content: (REPORTED[i] as (typeof REPORTED)[number]).content(orgId),
              status: 'BLOCKED' as const,
            }));
            let created: Awaited<ReturnType<typeof createReport>>;
            try {
              created = await createReport(
                lifecycle,
                orgId,
                { title: 'Oracle', description: '', assets },
                { now: new Date(at).toISOString() },
              );
            } catch (error) {
              if (error instanceof AppError && error.code === 'UNPROCESSABLE_CONTENT') continue;
              throw error;
            }
            const reportRecord = (await activity.find({
              organization: orgId,
              kind: 'report',
              id: String(created.id),
            })) as ActivityChange & { kind: 'report' };
            finals.set(`report-${created.id}`, { ...reportRecord, brands: [] });
            for (const [i, summary] of (reportRecord.proposals ?? []).entries()) {
              const proposal = (await activity.find({
                organization: orgId,
                kind: 'threat',
                id: String(summary.id),
              })) as ActivityChange & { kind: 'threat' };
              finals.set(`threat-${proposal.id}`, proposal);
              const decision = decisions[i] as (typeof decisions)[number];
              if (decision.decision !== 'NONE')
                reviews.push({ proposal, decision, at: at + decision.after * 60_000, reportId: String(created.id) });
            }
          }

          // Every review is sent twice, in an arbitrary order, `concurrency` at a time.
          const deliveries = [...reviews, ...reviews]
            .map((review) => ({ review, rank: shuffle.next().value as number }))
            .sort((a, b) => a.rank - b.rank)
            .map(({ review }) => review);
          const outcomes: string[] = [];
          for (let i = 0; i < deliveries.length; i += concurrency) {
            await Promise.all(
              deliveries.slice(i, i + concurrency).map(async ({ proposal, decision, at, reportId }) => {
                const input = {
                  assetId: proposal.assetId as number,
                  decision: decision.decision as 'APPROVE' | 'REJECT' | 'WATCHLIST',
                  ...(decision.decision === 'APPROVE' ? { label: 'General Phishing' } : {}),
                  ...(decision.decision === 'REJECT' ? { rejectReason: 'decayed' } : {}),
                  ...(decision.decision === 'WATCHLIST' ? { watchlistReason: 'DEAD' } : {}),
                  ...(decision.brand === undefined ? {} : { brandId: brandIdOf({ orgId, slug: decision.brand }) }),
                };
                try {
                  await reviewProposal(lifecycle, orgId, Number(proposal.id), input, at);
                } catch (error) {
                  if (error instanceof AppError && error.code === 'CONFLICT') {
                    outcomes.push('conflict');
                    return;
                  }
                  throw error;
                }
                outcomes.push('reviewed');
                const approved = decision.decision === 'APPROVE';
                finals.set(`threat-${proposal.id}`, {
                  ...proposal,
                  status: approved ? 'APPROVED' : 'REJECTED',
                  watchlisted: decision.decision === 'WATCHLIST',
                  brands: decision.brand === undefined ? [] : [decision.brand],
                });
                const report = finals.get(`report-${reportId}`) as ActivityChange;
                if (approved && decision.brand !== undefined && !report.brands.includes(decision.brand)) {
                  finals.set(`report-${reportId}`, { ...report, brands: [...report.brands, decision.brand] });
                }
              }),
            );
          }

          expect(outcomes.filter((o) => o === 'reviewed')).toHaveLength(reviews.length);
          const records = [...finals.values()];
          for (const brandSlug of [undefined, ...BRANDS]) {
            const actual = await organizationMetrics(stores, orgId, { brandSlug }, TODAY);
            expect(actual).toEqual(recount(records, { orgId, brandSlug }, {}, TODAY));
          }
          for (const { content, type } of REPORTED) {
            const checkKey = entryKeyOf(suffixes, content(orgId), type) as string;
            const approved = records.filter(
              (r) =>
                r.kind === 'threat' &&
                r.status === 'APPROVED' &&
                entryKeyOf(suffixes, r.content, r.assetType) === checkKey,
            );
            expect((await checkEntry(checkKey)).block).toBe(approved.length);
          }
          expect(await negativeCounters(orgId)).toEqual([]);
        },
      ),
      { numRuns: 15 },
    );
  });
});
