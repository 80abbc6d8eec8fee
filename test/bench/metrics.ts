import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { type QueryCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, localClient } from '../../infra/local/dynamo.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import type { AssetType } from '../../shared/domain/allowlist/asset-types.ts';
import { utcDay } from '../../shared/domain/core/dates.ts';
import { threatCounter } from '../../shared/domain/insights/counters.ts';
import { organizationMetrics } from '../../shared/domain/insights/metrics.ts';
import { type ActivityChange, applyActivities } from '../../shared/domain/lifecycle/activity.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { percentile } from './child.ts';

const DAYS = 365;
const SMALL = 1_000;
const LARGE = 1_000_000;
/** Threats of the large organization that go through applyActivity; the rest become counter deltas. */
const LARGE_INGESTED = 10_000;
const WARMUP = 50;
const ROUNDS = 300;
const BUDGET = 1.2;
/**
 * Two asset types, so that 10^3 threats already fill every (day, type) counter of the range: both
 * organizations then read day items of the same shape, and only the number of threats differs.
 */
const TYPES: AssetType[] = ['URL', 'TWITTER'];
const DAY_MS = 86_400_000;

/** Threat `i` of an organization: spread evenly over the days and types of the range. */
const threat = (orgId: string, i: number, firstDay: number): ActivityChange => {
  const createdAt = new Date(firstDay + (i % DAYS) * DAY_MS + (i % 86_400) * 1000).toISOString();
  return {
    organization: orgId,
    kind: 'threat',
    id: `bench-${i}`,
    content: `${orgId}-threat-${i}.example`,
    assetType: TYPES[i % TYPES.length] as AssetType,
    status: 'BLOCKED',
    watchlisted: false,
    brands: [],
    createdAt,
    updatedAt: createdAt,
    deleted: false,
  };
};

/**
 * Metrics latency at 10^3 and 10^6 recorded threats over the same 365-day range, measured in
 * alternation in one run, and the day items each request reads (Query ScannedCount).
 */
export async function benchMetrics(endpoint: string): Promise<Array<{ name: string; value: string }>> {
  const tableName = `bench-metrics-${randomUUID()}`;
  await ensureTable(endpoint, tableName);
  const db = createDocumentClient(endpoint);
  let scanned = 0;
  db.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      scanned += (result.output as Partial<QueryCommandOutput>).ScannedCount ?? 0;
      return result;
    },
    { step: 'initialize', name: 'countScannedItems' },
  );
  const directory = directoryRepository(db, tableName);
  const activity = activityRepository(db, tableName);
  const stores = { metrics: metricsRepository(db, tableName), directory };
  const today = utcDay(Date.now());
  const firstDay = Date.parse(`${today}T00:00:00Z`) - DAYS * DAY_MS;
  const query = { startDate: utcDay(firstDay), endDate: utcDay(firstDay + (DAYS - 1) * DAY_MS) };
  const orgs = { small: 'bench-small', large: 'bench-large' };
  for (const slug of Object.values(orgs)) await directory.putOrganization({ slug, name: slug, featureFlags: [] });

  try {
    const ingestStart = performance.now();
    const small = Array.from({ length: SMALL }, (_, i) => threat(orgs.small, i, firstDay));
    await applyActivities(suffixes, activity, small);
    const large = Array.from({ length: LARGE_INGESTED }, (_, i) => threat(orgs.large, i, firstDay));
    await applyActivities(suffixes, activity, large);
    const ingestMs = performance.now() - ingestStart;

    // The rest of the 10^6, added to the same day items with the ADDs the transaction uses.
    const totals = new Map<string, number>();
    for (let i = LARGE_INGESTED; i < LARGE; i++) {
      const cell = `${i % DAYS}|${TYPES[i % TYPES.length]}`;
      totals.set(cell, (totals.get(cell) ?? 0) + 1);
    }
    for (let day = 0; day < DAYS; day++) {
      const deltas = Object.fromEntries(TYPES.map((type) => [threatCounter(type), totals.get(`${day}|${type}`) ?? 0]));
      const entries = Object.entries({ ...deltas, total: Object.values(deltas).reduce((a, b) => a + b, 0) });
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key.orgDay(orgs.large, utcDay(firstDay + day * DAY_MS)),
          UpdateExpression: `ADD ${entries.map((_, i) => `#a${i} :a${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#a${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:a${i}`, value])),
        }),
      );
    }

    const measure = async (orgId: string) => {
      const start = performance.now();
      const result = await organizationMetrics(stores, orgId, query, today);
      return { ms: performance.now() - start, newThreats: result.metrics.newThreats };
    };
    for (let i = 0; i < WARMUP; i++) {
      await measure(orgs.small);
      await measure(orgs.large);
    }
    const samples = { small: [] as number[], large: [] as number[] };
    const counted = { small: 0, large: 0 };
    const reads = { small: 0, large: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate the order each round so neither side always runs on a warmer engine.
      const order = i % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
      for (const size of order) {
        scanned = 0;
        const { ms, newThreats } = await measure(orgs[size]);
        samples[size].push(ms);
        counted[size] = newThreats;
        reads[size] = scanned;
      }
    }
    const p50 = { small: percentile(samples.small, 0.5), large: percentile(samples.large, 0.5) };
    const ratio = p50.large / p50.small;
    const verdict = ratio <= BUDGET ? 'within' : 'OVER';
    const p95 = (size: 'small' | 'large') => percentile(samples[size], 0.95).toFixed(2);

    return [
      {
        name: `metrics, ${DAYS}-day range, 10^3 threats of ${TYPES.length} types (all ingested through applyActivity), p50 / p95`,
        value: `${p50.small.toFixed(2)} ms / ${p95('small')} ms (newThreats ${counted.small})`,
      },
      {
        name: `metrics, same range, 10^6 threats (${LARGE_INGESTED.toLocaleString('en')} ingested through applyActivity + ${(LARGE - LARGE_INGESTED).toLocaleString('en')} added to the day counters with the transaction's ADDs), p50 / p95`,
        value: `${p50.large.toFixed(2)} ms / ${p95('large')} ms (newThreats ${counted.large})`,
      },
      {
        name: 'metrics latency ratio 10^6 / 10^3 (p50)',
        value: `${ratio.toFixed(2)} (${verdict} the ≤ ${BUDGET} budget)`,
      },
      {
        name: `day items read per request (Query ScannedCount; ${DAYS} days in range)`,
        value: `${reads.small} at 10^3, ${reads.large} at 10^6`,
      },
      {
        name: 'activity ingestion through applyActivity (DynamoDB Local, 8 concurrent)',
        value: `${(SMALL + LARGE_INGESTED).toLocaleString('en')} changes in ${(ingestMs / 1000).toFixed(1)} s = ${(((SMALL + LARGE_INGESTED) / ingestMs) * 1000).toFixed(0)}/s`,
      },
    ];
  } finally {
    db.destroy();
    const admin = localClient(endpoint);
    await admin.send(new DeleteTableCommand({ TableName: tableName }));
    admin.destroy();
  }
}
