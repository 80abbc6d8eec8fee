import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { config } from '../../shared/config.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { fileArtifactStore } from '../../shared/db/blocklist-artifact-store.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { dynamoLease } from '../../shared/db/lease-repository.ts';
import { fileFeedStore } from '../../shared/db/verdict-feed-store.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { fileVerdictSnapshotStore } from '../../shared/db/verdict-snapshot-store.ts';
import { finishBulkAdds } from '../../shared/domain/allowlist/assets.ts';
import { publishBlocklistSnapshot } from '../../shared/domain/blocklist/blocklist.ts';
import { scheduleDueRuns } from '../../shared/domain/detections/index.ts';
import { SCHEDULE_CLASSES } from '../../shared/domain/detections/schedules.ts';
import { applyActivities } from '../../shared/domain/lifecycle/activity.ts';
import { rollBackAbandonedReports } from '../../shared/domain/lifecycle/reports.ts';
import {
  PUBLISHING,
  runPublisher,
  snapshotVerdicts,
  verdictPublisher,
} from '../../shared/domain/verdict-feed/index.ts';
import { detectionQueue, suffixes } from '../../shared/runtime.ts';
import { corsSettings } from '../cors.ts';
import { BASE_PATH, WORKER_WRITES, type Worker } from '../routes.ts';
import { demoActivity } from './demo-activity.ts';
import { assertPortFree, ensureTable, markOwner, startDynamo } from './dynamo.ts';
import { loadFixture, parseFixture } from './fixture.ts';
import { createGateway } from './gateway.ts';
import { prettyLogs } from './pretty-logs.ts';
import { applyLocalEnv, LOCAL, OWNER_TABLE } from './settings.ts';
import { startLocalWebhooks } from './webhooks.ts';
import { guardWrites, runAs } from './write-guard.ts';

const DEMO = resolve(import.meta.dirname, 'demo.json');

/**
 * The demo organization's first detection configs (DNS_TWIST over its domains, CERTSTREAM over the
 * recorded static-CT log in infra/local/detections, and the push sources), created through the API once and
 * run, so its detections are there to list; the scheduler runs them again at their cron's times.
 */
const startDemoDetections = async (base: string, key: string) => {
  const post = async (path: string, body: object) =>
    (
      await fetch(`${base}${path}`, { method: 'POST', headers: { 'X-API-KEY': key }, body: JSON.stringify(body) })
    ).json();
  const listed = (await post('/detection/configs/list', { slug: 'acme' })) as { sources?: unknown[] };
  if ((listed.sources ?? []).length > 0) return;
  await post('/detection/configs/create', { slug: 'acme', source: 'DNS_TWIST', config: { domains: ['acme.com'] } });
  await post('/detection/configs/create', {
    slug: 'acme',
    source: 'CERTSTREAM',
    config: { logs: [{ monitoringUrl: 'https://ct.example.net/demo/', kind: 'static' }] },
  });
  // Push sources: what acme submits (EXTERNAL), and lookalikes of its brands anyone checks (ASSET_CHECK).
  await post('/detection/configs/create', { slug: 'acme', source: 'EXTERNAL', config: {} });
  await post('/detection/configs/create', { slug: 'acme', source: 'ASSET_CHECK', config: {} });
  await post('/detection/configs/run', { slug: 'acme' });
  console.log(
    '  detections: DNS_TWIST, CERTSTREAM, EXTERNAL and ASSET_CHECK configs created for acme, the first two run',
  );
};
const RESUME_EVERY_MS = 2000;
/** The local scheduler ticks every class this often (each config still runs at its cron's times). */
const SCHEDULE_EVERY_MS = 30_000;
const RESUME_BUDGET_MS = 10_000;

/** Runs the local stand-in of a scheduled function as that function: it may write only what it declares. */
const asWorker = <T>(name: Worker, work: () => Promise<T>): Promise<T> =>
  runAs({ name, writes: WORKER_WRITES[name] }, work);

const main = async () => {
  mkdirSync(LOCAL.dataDir, { recursive: true });
  await assertPortFree(LOCAL.port, 'PORT');
  console.log(`Starting DynamoDB Local on 127.0.0.1:${LOCAL.dynamoPort} (data in .data/) ...`);
  const dynamo = await startDynamo({ port: LOCAL.dynamoPort, path: LOCAL.dataDir });
  await markOwner(dynamo.endpoint, OWNER_TABLE);
  applyLocalEnv(dynamo.endpoint);
  await ensureTable(dynamo.endpoint, LOCAL.tableName);

  console.log('Loading the demo fixture ...');
  const fixture = parseFixture(JSON.parse(readFileSync(DEMO, 'utf8')));
  const db = createDocumentClient(dynamo.endpoint);
  await loadFixture(db, LOCAL.tableName, fixture, (line) => console.log(`  ${line}`));
  console.log('Recording demo activity for the last 90 days ...');
  const demo = await applyActivities(
    suffixes(),
    activityRepository(db, LOCAL.tableName),
    demoActivity(suffixes(), new Date()),
  );
  console.log(`  activity: ${demo.applied} applied, ${demo.ignored} already recorded`);

  // The fixture and the demo activity were the operator's writes; what follows writes as the scheduled functions.
  guardWrites(db);
  // The snapshot the check's replica starts from, then one every few minutes, as the schedule does in AWS.
  const log = verdictFeed(db, LOCAL.tableName);
  const store = fileVerdictSnapshotStore(LOCAL.verdictsDir);
  const artifacts = fileArtifactStore(LOCAL.blocklistDir);
  const snapshot = () =>
    asWorker('snapshot-verdicts', async () => {
      const summary = await snapshotVerdicts(log, store, Date.now);
      const saved = await store.latest();
      if (saved !== undefined) await publishBlocklistSnapshot(artifacts, saved);
      return summary;
    });
  const verdicts = await snapshot();
  console.log(`  verdict snapshot: ${verdicts.keys} keys, in .data/verdicts/`);
  // The verdict publisher, in-process as the scheduled function runs in AWS: deltas in .data/verdicts/feed/.
  const publishing = await asWorker('publish-verdicts', async () =>
    runPublisher(
      verdictPublisher({
        log,
        feed: fileFeedStore(join(LOCAL.verdictsDir, 'feed')),
        lease: dynamoLease(db, LOCAL.tableName, {
          name: PUBLISHING.leaseName,
          owner: randomUUID(),
          leaseMs: PUBLISHING.leaseMs,
        }),
        leaseMs: PUBLISHING.leaseMs,
      }),
      {
        tickMs: PUBLISHING.tickMs,
        onError: (error) => console.error(`Verdict feed not published: ${String(error)}`),
      },
    ),
  );
  const snapshots = setInterval(() => {
    snapshot().catch((error: unknown) => console.error(`Verdict snapshot failed: ${String(error)}`));
  }, LOCAL.snapshotEveryMs);
  snapshots.unref();
  // The local stand-in for the scheduled function: rolls back abandoned reports, finishes interrupted bulk adds and
  // group deletes left unfinished.
  const groups = assetGroupRepository(db, LOCAL.tableName);
  const bulkAssets = assetRepository(db, LOCAL.tableName);
  const reports = activityRepository(db, LOCAL.tableName);
  let resuming = false;
  const resumer = setInterval(() => {
    if (resuming) return;
    resuming = true;
    asWorker('resume-interrupted-writes', async () => {
      await rollBackAbandonedReports(suffixes(), reports, new Date().toISOString());
      await finishBulkAdds(bulkAssets, Date.now(), Date.now() + RESUME_BUDGET_MS);
      await groups.resumeRemovals(Date.now() + RESUME_BUDGET_MS);
    })
      .catch((error: unknown) => console.error(`Interrupted writes not resumed: ${String(error)}`))
      .finally(() => {
        resuming = false;
      });
  }, RESUME_EVERY_MS);

  // The detection scheduler, as the schedules of its classes invoke it in AWS; runs go through the in-process queue.
  const detections = detectionRepository(db, LOCAL.tableName);
  const scheduler = setInterval(() => {
    asWorker('schedule-detections', () =>
      scheduleDueRuns({ store: detections, queue: detectionQueue() }, SCHEDULE_CLASSES, Date.now()),
    ).catch((error: unknown) => console.error(`Detection runs not scheduled: ${String(error)}`));
  }, SCHEDULE_EVERY_MS);

  // The webhook workers, in-process: events from the verdict log, deliveries through an in-process queue.
  const webhooks = await asWorker('generate-webhook-events', async () =>
    startLocalWebhooks({
      db,
      tableName: LOCAL.tableName,
      keyFile: LOCAL.webhookKeyFile,
      policy: { allowLoopback: config.webhookAllowLoopback },
      backoffBaseMs: config.webhookBackoffMs,
      timeoutMs: config.webhookTimeoutMs,
    }),
  );

  if (process.stdout.isTTY) prettyLogs();
  const server = createGateway({ cors: corsSettings(LOCAL.corsOrigins) });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(LOCAL.port, '127.0.0.1', done);
  });
  const base = `http://localhost:${LOCAL.port}${BASE_PATH}`;
  console.log(`\nAPI listening at ${base}\n\nDemo API keys:`);
  for (const apiKey of fixture.apiKeys) {
    const owner = apiKey.organization ? `organization ${apiKey.organization}` : `user ${apiKey.user}`;
    console.log(`  ${apiKey.key}  (${owner}; ${apiKey.scopes.join(', ')})`);
  }
  const key = fixture.apiKeys[0]?.key ?? '<key>';
  await startDemoDetections(base, key);
  console.log(`\nTry:
  curl -s -H 'X-API-KEY: ${key}' ${base}/organization/asset-groups
  curl -s -H 'X-API-KEY: ${key}' '${base}/organization/assets?per_page=5'
  curl -s -X POST -H 'X-API-KEY: ${key}' -d '{"name":"Campaigns"}' ${base}/organization/asset-groups
  curl -s -H 'X-API-KEY: ${key}' '${base}/organization/metrics?brandSlug=acme-wallet'
  curl -s -X POST -H 'X-API-KEY: ${key}' -d '{"content":"https://app.acme.com/login"}' ${base}/asset/check
  curl -s -X POST -H 'X-API-KEY: ${key}' -d '{"slug":"acme","limit":5}' ${base}/detection/list
\nCtrl-C stops the API and DynamoDB Local.`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping ...');
    clearInterval(resumer);
    await publishing.stop();
    clearInterval(scheduler);
    await webhooks.stop();
    server.close();
    server.closeAllConnections();
    await dynamo.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
