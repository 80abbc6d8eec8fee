import { type ChildProcess, spawn } from 'node:child_process';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandler as createAddAssets } from '../../functions/assets/create.ts';
import { createHandler as createResume } from '../../functions/maintenance/resume-writes.ts';
import { lambdaContext } from '../../infra/local/lambda-context.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { batchGetAll } from '../../shared/db/batch.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { key } from '../../shared/db/keys.ts';
import { cachedKeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type AddResult, BULK_ADD_ABANDONED_AFTER_MS } from '../../shared/domain/allowlist/assets.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { apiEvent, call, parse } from '../fixtures/api-event.ts';
import { phaseCounter } from '../fixtures/bulk-phases.ts';
import { seed } from '../fixtures/seed.ts';
import { stallingProxy } from '../fixtures/stalling-proxy.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { asWorker } from '../fixtures/workers.ts';

const table = await createTestTable('bulk-interrupted');
const ASSETS = 1_000;
const keys = cachedKeyResolver(apiKeyRepository(table.db, table.tableName));
const assets = assetRepository(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);
const ORGS = [
  'stall-staging',
  'stall-commit',
  'stall-publishing',
  'kill-staging',
  'kill-publishing',
  'retry',
  'loaded',
];
const keyOf = (org: string) => `${org}-key-0123456789abcdef`;
const groupOf = new Map<string, number>();

const contents = (org: string) => Array.from({ length: ASSETS }, (_, i) => `https://${org}-${i}.example`);
const body = (org: string) => ({ assets: contents(org).map((content) => ({ content, groupId: groupOf.get(org) })) });
const addEvent = (org: string) =>
  apiEvent({ method: 'POST', path: '/organization/assets', apiKey: keyOf(org), body: body(org) });

/** The sweeper of interrupted writes, with its clock past the abandonment bound of every bulk add begun until now. */
const sweep = () =>
  asWorker(
    'resume-interrupted-writes',
    createResume({
      suffixes,
      groups,
      reports: activityRepository(table.db, table.tableName),
      assets,
      now: () => Date.now() + BULK_ADD_ABANDONED_AFTER_MS + 1_000,
    }),
  )({}, { getRemainingTimeInMillis: () => 55_000 });

/**
 * What the organization shows of the bulk add: assets listed (every page), its group's count, the
 * check-index entries that allow its contents, and identities still claimed by a batch.
 */
const visible = async (org: string) => {
  let listed = 0;
  let position: string | undefined;
  do {
    const page = await assets.list(org, {}, 1_000, position);
    listed += page.assets.length;
    position = page.position;
  } while (position !== undefined);
  const counted = (await groups.list(org)).find((group) => group.id === groupOf.get(org))?.assetCount;
  const entries = await batchGetAll(
    table.db,
    table.tableName,
    contents(org).map((content) => key.checkEntry(entryKeyOf(suffixes, content, 'URL') as string)),
    undefined,
    { consistent: true },
  );
  const allowed = entries.filter((entry) => Number(entry.allow) > 0).length;
  const { Items = [] } = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :identity)',
      FilterExpression: 'attribute_exists(pendingBatch)',
      ExpressionAttributeValues: { ':pk': key.groups.PK(org), ':identity': 'ASSETKEY#' },
      ConsistentRead: true,
    }),
  );
  return { listed, counted, allowed, pending: Items.length };
};
/**
 * What is visible once the table is quiet: a transaction the killed process had already sent may
 * still land after the kill, so two reads in a row must agree (each transaction is atomic, but one
 * landing between the listing and the counts of a single read would mix two states).
 */
const settledVisible = async (org: string) => {
  let last = await visible(org);
  for (;;) {
    const now = await visible(org);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
};
const none = { listed: 0, counted: 0, allowed: 0, pending: 0 };
const all = { listed: ASSETS, counted: ASSETS, allowed: ASSETS, pending: 0 };

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: ORGS.map((slug) => ({ slug, name: slug })),
    apiKeys: ORGS.map((org) => ({ key: keyOf(org), organization: org, scopes: ['read', 'write'] })),
    groups: ORGS.map((org) => ({ organization: org, name: 'Websites' })),
  });
  for (const org of ORGS) groupOf.set(org, (await groups.list(org))[0]?.id as number);
});

describe('a bulk add of 1,000 assets under a stalled table', () => {
  /** Which call the table stops answering at: a staging transaction, the commit, a publishing transaction. */
  const STALLS = [
    { org: 'stall-staging', phase: 'staging', transaction: 5, after: none },
    { org: 'stall-commit', phase: 'commit', transaction: 0, after: undefined },
    { org: 'stall-publishing', phase: 'publishing', transaction: 10, after: all },
  ] as const;

  it.each(STALLS)(
    'answers 503, shows no count or check entry beside what it lists, and holds all or none once the sweeper ran ($org)',
    async ({ org, phase, transaction, after }) => {
      const proxy = await stallingProxy(table.endpoint);
      const policy = { attempt: process.env.STORE_ATTEMPT_TIMEOUT_MS, budget: process.env.STORE_CALL_BUDGET_MS };
      // Long enough for a loaded DynamoDB Local, short enough that a stalled call gives up within the test.
      process.env.STORE_ATTEMPT_TIMEOUT_MS = '8000';
      process.env.STORE_CALL_BUDGET_MS = '10000';
      const db = createDocumentClient(proxy.endpoint);
      process.env.STORE_ATTEMPT_TIMEOUT_MS = policy.attempt;
      process.env.STORE_CALL_BUDGET_MS = policy.budget;
      const count = phaseCounter();
      let updates = 0;
      let inFlight = 0;
      db.middlewareStack.add(
        (next) => async (args) => {
          const input = args.input as object;
          const seen = count(input);
          if ('UpdateExpression' in input && 'Key' in input) updates++;
          const commit = phase === 'commit' && updates === 2;
          if (commit || (seen?.phase === phase && seen.transactions === transaction)) proxy.stall();
          inFlight++;
          try {
            return await next(args);
          } finally {
            inFlight--;
          }
        },
        { step: 'initialize', name: 'stall' },
      );
      const handler = createAddAssets({
        suffixes,
        keys,
        assets: assetRepository(db, table.tableName),
        groups: assetGroupRepository(db, table.tableName),
      });

      const response = parse(await handler(addEvent(org) as never, lambdaContext('test')));
      proxy.resume();
      // The client's own retries of calls the request gave up on may still land: measured once they are over.
      await vi.waitFor(() => expect(inFlight).toBe(0), { timeout: 45_000, interval: 100 });
      const afterAnswer = await visible(org);
      await sweep();
      const afterSweep = await visible(org);
      await proxy.close();

      expect([response.statusCode, response.headers?.['Retry-After'] ?? response.headers?.['retry-after']]).toEqual([
        503,
        expect.any(String),
      ]);
      expect([afterAnswer.counted, afterAnswer.allowed]).toEqual([afterAnswer.listed, afterAnswer.listed]);
      if (after !== all) expect({ ...afterAnswer, pending: 0 }).toEqual(none);
      // A commit sent as the table stalled may still land once it answers again (a retry of the SDK's).
      expect(afterSweep).toEqual(after ?? (afterSweep.listed === 0 ? none : all));
    },
  );
});

describe('a bulk add of 1,000 assets whose process is killed (SIGKILL) mid-way', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
  });

  /** Transactions answered before the process freezes and is killed: about 21 stage 1,000 assets, then about 42 publish them. */
  it.each([
    { org: 'kill-staging', phase: 'staging', freezeAfter: 8, after: none },
    { org: 'kill-publishing', phase: 'publishing', freezeAfter: 15, after: all },
  ])(
    'holds all or none once the sweeper ran after a kill after $freezeAfter $phase transactions ($org)',
    async ({ org, phase, freezeAfter, after }) => {
      child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/bulk-add-worker.ts'], {
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: table.endpoint,
          TABLE_NAME: table.tableName,
          BULK_ORG: org,
          BULK_GROUP: String(groupOf.get(org)),
          BULK_COUNT: String(ASSETS),
          BULK_FREEZE_AFTER: String(freezeAfter),
          BULK_FREEZE_PHASE: phase,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const running = child;
      const said = await new Promise<string>((resolve) => {
        running.stdout?.on('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
        running.on('exit', () => resolve('exited'));
      });
      const exited = new Promise((resolve) => running.on('exit', resolve));
      running.kill('SIGKILL');
      await exited;

      const afterKill = await settledVisible(org);
      await sweep();
      const afterSweep = await visible(org);

      expect(said).toBe('frozen');
      expect([afterKill.counted, afterKill.allowed]).toEqual([afterKill.listed, afterKill.listed]);
      if (after === none) expect({ ...afterKill, pending: 0 }).toEqual(none);
      else expect(afterKill.listed).toBeLessThan(ASSETS);
      expect(afterSweep).toEqual(after);
    },
  );
});

describe('a retry of the same 1,000 assets', () => {
  it('ends with exactly 1,000 assets and exact counts after an interrupted first attempt, and adds nothing when sent once more', async () => {
    const crashing = createDocumentClient(table.endpoint);
    const count = phaseCounter();
    crashing.middlewareStack.add(
      (next) => async (args) => {
        const seen = count(args.input as object);
        if (seen?.phase === 'publishing' && seen.transactions === 10) throw new Error('crash before call');
        return next(args);
      },
      { step: 'initialize', name: 'crash' },
    );
    const interrupted = createAddAssets({
      suffixes,
      keys,
      assets: assetRepository(crashing, table.tableName),
      groups: assetGroupRepository(crashing, table.tableName),
    });
    const healthy = createAddAssets({ suffixes, keys, assets, groups });

    const first = parse(await interrupted(addEvent('retry') as never, lambdaContext('test')));
    const retried = await call(healthy, addEvent('retry'));
    const afterRetry = await visible('retry');
    const again = await call(healthy, addEvent('retry'));

    expect(first.statusCode).toBe(500);
    const answer = retried.body as { results: AddResult[]; successCount: number; errorCount: number };
    expect([retried.statusCode, answer.successCount, answer.errorCount]).toEqual([200, ASSETS, 0]);
    expect(new Set(answer.results.map((result) => (result.success ? result.id : undefined))).size).toBe(ASSETS);
    expect(afterRetry).toEqual(all);
    expect([again.statusCode, (again.body as { successCount: number }).successCount]).toEqual([200, 0]);
    expect(await visible('retry')).toEqual(all);
  });
});

describe('a bulk add of 1,000 assets on a loaded machine', () => {
  let spinners: ChildProcess[] = [];
  afterEach(() => {
    for (const spinner of spinners) spinner.kill('SIGKILL');
    spinners = [];
  });

  it('answers 200 with every asset added under the production request budget while busy loops take the cores', async () => {
    const saved = process.env.STORE_REQUEST_BUDGET_MS;
    process.env.STORE_REQUEST_BUDGET_MS = '2000';
    spinners = Array.from({ length: 2 }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    const handler = createAddAssets({ suffixes, keys, assets, groups });

    const response = await call(handler, addEvent('loaded')).finally(() => {
      if (saved === undefined) delete process.env.STORE_REQUEST_BUDGET_MS;
      else process.env.STORE_REQUEST_BUDGET_MS = saved;
    });

    expect([response.statusCode, (response.body as { successCount: number }).successCount]).toEqual([200, ASSETS]);
    expect(await visible('loaded')).toEqual(all);
  });
});
