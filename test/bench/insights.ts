import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { createHandler as createHealthchecks } from '../../functions/healthchecks/list.ts';
import { createHandler as createHealthcheck } from '../../functions/healthchecks/run.ts';
import { createHandler as createBreakdown } from '../../functions/insights/breakdown.ts';
import { createHandler as createFound } from '../../functions/insights/found.ts';
import { createHandler as createQueues } from '../../functions/insights/queues.ts';
import { createHandler as createReportsSearch } from '../../functions/insights/reports-search.ts';
import { createHandler as createSummary } from '../../functions/insights/summary.ts';
import { ensureTable, localClient } from '../../infra/local/dynamo.ts';
import { lambdaContext } from '../../infra/local/lambda-context.ts';
import { settingsRepository } from '../../shared/db/account-repository.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { healthcheckFindingsRepository } from '../../shared/db/healthcheck-findings-repository.ts';
import {
  insightDeltas,
  insightGaugeDeltas,
  insightHistogramDeltas,
  insightMonthDeltas,
} from '../../shared/db/insight-items.ts';
import { key } from '../../shared/db/keys.ts';
import { lifecycleRepository } from '../../shared/db/lifecycle-repository.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { withBreakdownKeys, withGaugeSlots } from '../../shared/db/month-keys.ts';
import { openWorkRepository } from '../../shared/db/open-work-repository.ts';
import { cachedKeyResolver, hashApiKey } from '../../shared/domain/account/api-keys.ts';
import type { AssetType } from '../../shared/domain/allowlist/asset-types.ts';
import { cursorCodec } from '../../shared/domain/core/cursor.ts';
import { utcDay } from '../../shared/domain/core/dates.ts';
import {
  type ActivityChange,
  type ActivityRecord,
  applyActivities,
  effectsOfAll,
  toRecord,
} from '../../shared/domain/lifecycle/activity.ts';
import { apiEvent } from '../fixtures/api-event.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { percentile } from './child.ts';

const DAYS = 365;
const SMALL = 1_000;
const LARGE = 1_000_000;
/** Records of the large organization that go through applyActivity; the rest become the same counter deltas. */
const LARGE_INGESTED = 5_000;
const WARMUP = 5;
const ROUNDS = 40;
const BUDGET = 1.2;
const DAY_MS = 86_400_000;
const TYPES: AssetType[] = ['URL', 'TWITTER', 'PAGE'];
const TAKEDOWN_STATUSES = ['TODO', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
const PLATFORMS = ['discord', 'telegram', undefined];
/** Attributes per UpdateItem when the bench writes day items directly (update expressions are bounded). */
const ADDS_PER_UPDATE = 40;

/**
 * Record `i` of an organization, spread evenly over the days of the range: blocked threats (some
 * proposed by a report), takedowns in every status, and reports with a pending proposal, so
 * every counter the insight routes read is filled for both sizes.
 */
const recordOf = (orgId: string, i: number, firstDay: number): ActivityChange => {
  const createdAt = new Date(firstDay + (i % DAYS) * DAY_MS + (i % 43_200) * 1000).toISOString();
  const updatedAt = new Date(Date.parse(createdAt) + ((i * 7919) % 3000) * 60_000).toISOString();
  const base = { organization: orgId, id: `bench-${i}`, brands: [], createdAt, updatedAt, deleted: false };
  switch (i % 3) {
    case 0:
      return {
        ...base,
        kind: 'threat',
        content: `${orgId}-threat-${i}.example`,
        assetType: TYPES[i % TYPES.length] as AssetType,
        status: 'BLOCKED',
        watchlisted: i % 11 === 0,
        ...(i % 2 === 0 ? { reportId: `r-${i}` } : {}),
      };
    case 1:
      return { ...base, kind: 'takedown', status: TAKEDOWN_STATUSES[i % 4] as (typeof TAKEDOWN_STATUSES)[number] };
    default: {
      const platform = PLATFORMS[i % PLATFORMS.length];
      return {
        ...base,
        kind: 'report',
        ...(platform === undefined ? {} : { reporter: { externalReporter: { platform } } }),
        proposals: [
          {
            id: i,
            assetId: i,
            content: `p-${i}.example`,
            type: 'URL',
            reviewStatus: i % 5 === 0 ? 'PENDING' : 'APPROVED',
          },
        ],
      };
    }
  }
};

type Item = Map<string, number>;
type Partition = 'metrics' | 'insights' | 'months' | 'gauges' | 'histograms';

/** The counter deltas the transactions of these records would ADD, summed per item (metrics, insights, months, gauges, histograms). */
const countersOf = (records: readonly ActivityRecord[], items: Map<string, Item>) => {
  const writes = records.map((next) => ({ previous: undefined, next }));
  const add = (part: Partition, deltas: (ReturnType<typeof insightDeltas>[number] & { item?: string })[]) => {
    for (const delta of deltas) {
      const id = `${part}|${delta.day}|${delta.shard}|${delta.item ?? ''}`;
      const item = items.get(id) ?? new Map<string, number>();
      let total = 0;
      for (const [name, value] of Object.entries(delta.deltas)) {
        item.set(name, (item.get(name) ?? 0) + value);
        total += value;
      }
      if (part === 'metrics') item.set('total', (item.get('total') ?? 0) + total);
      items.set(id, item);
    }
  };
  add('metrics', effectsOfAll(writes).counters);
  add('insights', insightDeltas(writes));
  add(
    'months',
    insightMonthDeltas(writes).map(({ month, ...delta }) => ({ ...delta, day: month })),
  );
  add(
    'gauges',
    insightGaugeDeltas(writes).map(({ month, ...delta }) => ({ ...delta, day: month })),
  );
  add(
    'histograms',
    insightHistogramDeltas(writes).map(({ month, ...delta }) => ({ ...delta, day: month })),
  );
};

export async function benchInsights(endpoint: string): Promise<Array<{ name: string; value: string }>> {
  const tableName = `bench-insights-${randomUUID()}`;
  await ensureTable(endpoint, tableName);
  // A whole year of day items is several pages per shard on DynamoDB Local: the measure, not the failure policy.
  const policy = { budget: process.env.STORE_CALL_BUDGET_MS, attempt: process.env.STORE_ATTEMPT_TIMEOUT_MS };
  process.env.STORE_CALL_BUDGET_MS = '120000';
  process.env.STORE_ATTEMPT_TIMEOUT_MS = '60000';
  const db = createDocumentClient(endpoint);
  let read = 0;
  db.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const output = result.output as { ScannedCount?: number; Item?: unknown; Responses?: Record<string, unknown[]> };
      read += output.ScannedCount ?? 0;
      if (output.Item !== undefined) read += 1;
      for (const items of Object.values(output.Responses ?? {})) read += items.length;
      return result;
    },
    { step: 'initialize', name: 'countReadItems' },
  );
  const directory = directoryRepository(db, tableName);
  const activity = activityRepository(db, tableName);
  const apiKeys = apiKeyRepository(db, tableName);
  const today = utcDay(Date.now());
  const firstDay = Date.parse(`${today}T00:00:00Z`) - DAYS * DAY_MS;
  const orgs = { small: 'bench-small', large: 'bench-large' } as const;
  const keys = { small: 'bench-insights-small-key-0123456789', large: 'bench-insights-large-key-0123456789' };
  for (const size of ['small', 'large'] as const) {
    await directory.putOrganization({ slug: orgs[size], name: orgs[size], featureFlags: [] });
    await apiKeys.put(hashApiKey(keys[size]), {
      kind: 'organization',
      orgId: orgs[size],
      scopes: ['read'],
      revoked: false,
    });
  }
  const deps = {
    keys: cachedKeyResolver(apiKeys),
    metrics: metricsRepository(db, tableName),
    directory,
    settings: settingsRepository(db, tableName),
    work: openWorkRepository(db, tableName),
    findings: healthcheckFindingsRepository(db, tableName),
    lists: lifecycleRepository(db, tableName),
    detections: detectionRepository(db, tableName),
    store: activity,
    cursors: cursorCodec(() => 'bench-secret'),
    suffixes,
    now: () => Date.now(),
  };

  try {
    const ingestStart = performance.now();
    await applyActivities(
      suffixes,
      activity,
      Array.from({ length: SMALL }, (_, i) => recordOf(orgs.small, i, firstDay)),
    );
    await applyActivities(
      suffixes,
      activity,
      Array.from({ length: LARGE_INGESTED }, (_, i) => recordOf(orgs.large, i, firstDay)),
    );
    const ingestMs = performance.now() - ingestStart;

    // The rest of the 10^6: the deltas their transactions would ADD, added to the same day items.
    const items = new Map<string, Item>();
    const CHUNK = 10_000;
    for (let start = LARGE_INGESTED; start < LARGE; start += CHUNK) {
      const records = Array.from({ length: Math.min(CHUNK, LARGE - start) }, (_, i) =>
        toRecord(suffixes, undefined, recordOf(orgs.large, start + i, firstDay)),
      );
      countersOf(records, items);
    }
    for (const [id, item] of items) {
      const [partition, day, shard, histogram] = id.split('|') as [Partition, string, string, string];
      const entries = [...item];
      for (let start = 0; start < entries.length; start += ADDS_PER_UPDATE) {
        const part = entries.slice(start, start + ADDS_PER_UPDATE);
        const adds = {
          UpdateExpression: `ADD ${part.map((_, i) => `#a${i} :a${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(part.map(([name], i) => [`#a${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(part.map(([, value], i) => [`:a${i}`, value])) as Record<
            string,
            unknown
          >,
        };
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key:
              partition === 'histograms'
                ? key.insightHistograms(orgs.large, histogram, day, Number(shard))
                : {
                    metrics: key.orgDay,
                    insights: key.insightDay,
                    months: key.insightMonth,
                    gauges: key.insightGauges,
                  }[partition](orgs.large, day, Number(shard)),
            // Month items also name the keys their breakdowns count, as the transactions' updates do.
            // Gauge items hold every slot of their gauges, as the transactions' updates leave them.
            ...(partition === 'months'
              ? withBreakdownKeys(adds, Object.fromEntries(part))
              : partition === 'gauges'
                ? withGaugeSlots(adds, Object.fromEntries(part))
                : adds),
          }),
        );
      }
    }

    type Handler = (event: never, ctx: ReturnType<typeof lambdaContext>) => Promise<APIGatewayProxyResultV2>;
    const routes: [string, Handler, string, Record<string, unknown>][] = [
      ['POST /metrics/summary', createSummary(deps) as Handler, '/v2/metrics/summary', {}],
      [
        'POST /metrics/breakdown (by source)',
        createBreakdown(deps) as Handler,
        '/v2/metrics/breakdown',
        { by: 'source', metric: 'newThreats' },
      ],
      ['POST /metrics/found', createFound(deps) as Handler, '/v2/metrics/found', {}],
      ['POST /healthchecks/list', createHealthchecks(deps) as Handler, '/v2/healthchecks/list', {}],
      [
        'POST /healthchecks/reviewing/backlog',
        createHealthcheck(deps) as Handler,
        '/v2/healthchecks/reviewing/backlog',
        {},
      ],
      ['POST /operations/queues/snapshot', createQueues(deps) as Handler, '/v2/operations/queues/snapshot', {}],
      [
        'POST /reports/search (3 assets)',
        createReportsSearch(deps) as Handler,
        '/v2/reports/search',
        { assets: ['a.example', 'b.example', 'c.example'] },
      ],
    ];
    const rows: { name: string; value: string }[] = [
      {
        name: `setup: ${SMALL.toLocaleString('en')} records (small) and ${LARGE_INGESTED.toLocaleString('en')} (large) through applyActivity`,
        value: `${(ingestMs / 1000).toFixed(1)} s; the large organization's other ${(LARGE - LARGE_INGESTED).toLocaleString('en')} records added as the counter deltas their transactions ADD`,
      },
    ];
    for (const [name, handler, path, body] of routes) {
      const invoke = async (size: 'small' | 'large') => {
        const start = performance.now();
        const result = await handler(
          apiEvent({ method: 'POST', path, apiKey: keys[size], body }) as never,
          lambdaContext('bench'),
        );
        const status = typeof result === 'object' ? result.statusCode : 200;
        if (status !== 200)
          throw new Error(`${name} answered ${status}: ${typeof result === 'object' ? result.body : ''}`);
        return performance.now() - start;
      };
      for (let i = 0; i < WARMUP; i++) {
        await invoke('small');
        await invoke('large');
      }
      const samples = { small: [] as number[], large: [] as number[] };
      const reads = { small: 0, large: 0 };
      for (let i = 0; i < ROUNDS; i++) {
        const order = i % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
        for (const size of order) {
          read = 0;
          samples[size].push(await invoke(size));
          reads[size] = read;
        }
      }
      const p50 = { small: percentile(samples.small, 0.5), large: percentile(samples.large, 0.5) };
      const ratio = p50.large / p50.small;
      rows.push({
        name: `${name}: p50 at 10^3 / 10^6 records, ratio; items read`,
        value: `${p50.small.toFixed(1)} ms / ${p50.large.toFixed(1)} ms = ${ratio.toFixed(2)} (${ratio <= BUDGET ? 'within' : 'OVER'} ≤ ${BUDGET}); ${reads.small} / ${reads.large}`,
      });
    }
    rows.push({
      name: 'day and month items of the large organization, their mean size',
      value: `${items.size} items written directly, ${Math.round([...items.values()].reduce((sum, item) => sum + item.size, 0) / Math.max(1, items.size))} attributes each on average`,
    });
    return rows;
  } finally {
    for (const [name, value] of [
      ['STORE_CALL_BUDGET_MS', policy.budget],
      ['STORE_ATTEMPT_TIMEOUT_MS', policy.attempt],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    db.destroy();
    const admin = localClient(endpoint);
    await admin.send(new DeleteTableCommand({ TableName: tableName }));
    admin.destroy();
  }
}
