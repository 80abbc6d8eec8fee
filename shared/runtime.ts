import { randomUUID } from 'node:crypto';
import { KMSClient } from '@aws-sdk/client-kms';
import { config } from './config.ts';
import { profileRepository, settingsRepository } from './db/account-repository.ts';
import { activityRepository } from './db/activity-repository.ts';
import { httpListReader } from './db/adapters/list-reader.ts';
import { shippedSuffixes } from './db/adapters/public-suffix-file.ts';
import { systemTimer } from './db/adapters/timer.ts';
import { apiKeyRepository } from './db/api-key-repository.ts';
import { assetGroupRepository } from './db/asset-group-repository.ts';
import { assetRepository } from './db/asset-repository.ts';
import { fileArtifactStore, memoryArtifactStore, s3ArtifactStore } from './db/blocklist-artifact-store.ts';
import {
  fileSigningKeys,
  type PublishedKeySource,
  publicKeysOf,
  s3PublishedKeys,
} from './db/blocklist-signing-keys.ts';
import { secretSigningKeys } from './db/blocklist-signing-secret.ts';
import { checkIndexRepository } from './db/check-repository.ts';
import { createDocumentClient, lazyClient, underFailurePolicy } from './db/client.ts';
import { consumerRepository } from './db/consumer-repository.ts';
import { secretCursorKeys } from './db/cursor-key-secret.ts';
import { deadLetterQueue } from './db/dead-letter-queue.ts';
import { detectionRepository } from './db/detection-repository.ts';
import { inProcessRunQueue, recordedLogNames, sqsRunQueue } from './db/detection-sources.ts';
import { directoryRepository } from './db/directory-repository.ts';
import { blockingThreatsOf, disputeRepository, userEmailOf } from './db/dispute-repository.ts';
import { healthcheckFindingsRepository } from './db/healthcheck-findings-repository.ts';
import { dynamoLease } from './db/lease-repository.ts';
import { lifecycleRepository } from './db/lifecycle-repository.ts';
import { fileSnapshotStore, readShippedEthList, s3SnapshotStore } from './db/list-snapshot-store.ts';
import { metricsRepository } from './db/metrics-repository.ts';
import { openWorkRepository } from './db/open-work-repository.ts';
import { reportDirectoryRepository } from './db/report-directory-repository.ts';
import { s3Objects } from './db/s3.ts';
import { inProcessScanQueue, sqsScanQueue } from './db/scan-queue.ts';
import { scanRepository } from './db/scan-repository.ts';
import { sqsClient } from './db/sqs.ts';
import { taxiiRepository } from './db/taxii-repository.ts';
import { verdictEntryRepository } from './db/verdict-entry-repository.ts';
import { verdictExportRepository } from './db/verdict-export-repository.ts';
import { fileFeedStore, s3FeedStore } from './db/verdict-feed-store.ts';
import { verdictFeed } from './db/verdict-log.ts';
import { fileVerdictSnapshotStore, s3VerdictSnapshotStore } from './db/verdict-snapshot-store.ts';
import { assetRecordsReader, changeLogReader, webhookRepository } from './db/webhook-repository.ts';
import { kmsSealer, localSealer, rememberingSealer } from './db/webhook-secrets.ts';
import { cachedKeyResolver } from './domain/account/api-keys.ts';
import { tokenBuckets } from './domain/account/rate-limits.ts';
import { blocklist as blocklistService } from './domain/blocklist/blocklist.ts';
import { manifestIssuer } from './domain/blocklist/manifest.ts';
import {
  type CheckerOptions,
  createChecker,
  externalListsVersion,
  loadExternalLists,
  loadExternalSources,
  parseFeeds,
  refreshingSources,
} from './domain/check/index.ts';
import { cursorCodec } from './domain/core/cursor.ts';
import { checkSampler, SAMPLES_MESSAGE } from './domain/detections/check-samples.ts';
import { feedSource, PUBLISHING, replicatedIndex, verdictPublisher } from './domain/verdict-feed/index.ts';
import { type Egress, type EgressPolicy, keepAliveAgents, refusalOf, systemResolver } from './egress/index.ts';
import { feedCheckSamplesLocally, localWorkers } from './local-workers.ts';
import { logger } from './logger.ts';
import { recordReplicaAge } from './metrics.ts';
import { cachedHooks, type DeliveryDeps, type Enqueue } from './webhooks/dispatch.ts';
import { inProcessEnqueue, sqsEnqueue } from './webhooks/queue.ts';
import { sendWebhook } from './webhooks/sender.ts';

/** Builds a value on first use and keeps it for the life of the container. */
export const once = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
};

/** The shipped Public Suffix List, read at the container's first suffix lookup: what canonicalization looks suffixes up in. */
export const suffixes = /* @__PURE__ */ once(shippedSuffixes);

const documentClient = /* @__PURE__ */ once(() => lazyClient(() => createDocumentClient(config.dynamoEndpoint)));
/** The container's table client, for the local runtime's write guard (infra/local/write-guard.ts); no function uses it. */
export const tableClient = documentClient;
/** The S3 objects of the snapshot stores, over the container's one connection pool. */
const objects = /* @__PURE__ */ once(() => s3Objects());
const table = <T>(repository: (db: ReturnType<typeof documentClient>, table: string) => T) =>
  once(() => repository(documentClient(), config.tableName));

/*
 * The production dependencies of the functions: one client per container (built by its first
 * command, see `lazyClient`), the stores over the configured table, the key cache and the
 * clock. Each function module imports this module as a
 * namespace (`import * as runtime`) and passes what it needs to its `createHandler`; tests pass
 * fakes instead. Every dependency is a separate export marked pure, so a function's bundle keeps
 * only the ones it uses (and their clients): the list handlers load no S3, SQS or Secrets
 * Manager client.
 */
export const keys = /* @__PURE__ */ once(() =>
  cachedKeyResolver(apiKeyRepository(documentClient(), config.tableName), {
    guesses: { buckets: tokenBuckets(), budget: config.keyGuessLimit },
  }),
);
export const assets = /* @__PURE__ */ table(assetRepository);
export const groups = /* @__PURE__ */ table(assetGroupRepository);
export const metrics = /* @__PURE__ */ table(metricsRepository);
export const directory = /* @__PURE__ */ table(directoryRepository);
export const metricsStores = /* @__PURE__ */ once(() => ({ metrics: metrics(), directory: directory() }));
export const activity = /* @__PURE__ */ table(activityRepository);
export const profiles = /* @__PURE__ */ table(profileRepository);
export const settings = /* @__PURE__ */ table(settingsRepository);
export const openWork = /* @__PURE__ */ table(openWorkRepository);
const healthcheckFindings = /* @__PURE__ */ table(healthcheckFindingsRepository);
export const deadLetters = /* @__PURE__ */ once(() =>
  deadLetterQueue(sqsClient('dead-letter queue'), config.deadLetterQueueUrl),
);
export const verdictLog = /* @__PURE__ */ table(verdictFeed);
export const verdictExport = /* @__PURE__ */ table(verdictExportRepository);
export const verdictEntries = /* @__PURE__ */ table(verdictEntryRepository);
export const consumers = /* @__PURE__ */ table(consumerRepository);
export const verdictSnapshots = /* @__PURE__ */ once(() => {
  const location = config.verdictSnapshots;
  if (location === undefined) return undefined;
  return 'bucket' in location
    ? s3VerdictSnapshotStore(objects(), location.bucket)
    : fileVerdictSnapshotStore(location.dir);
});
/** The published verdict feed (deltas and their pointer), beside the snapshots: where replicas poll. */
export const verdictFeedStore = /* @__PURE__ */ once(() => {
  const location = config.verdictSnapshots;
  if (location === undefined) return undefined;
  return 'bucket' in location ? s3FeedStore(objects(), location.bucket) : fileFeedStore(`${location.dir}/feed`);
});
/** The verdict publisher of this container, under a lease of its own name (one publishes at a time). */
export const publisher = /* @__PURE__ */ once(() => {
  const feed = verdictFeedStore();
  if (feed === undefined) throw new Error('No verdict feed location is configured (VERDICTS_BUCKET or VERDICTS_DIR)');
  return verdictPublisher({
    log: verdictLog(),
    feed,
    lease: dynamoLease(documentClient(), config.tableName, {
      name: PUBLISHING.leaseName,
      owner: randomUUID(),
      leaseMs: PUBLISHING.leaseMs,
    }),
    leaseMs: PUBLISHING.leaseMs,
  });
});
/**
 * The check index as an in-memory replica of the service's verdicts, loaded from the newest
 * snapshot (at init when Lambda initializes ahead of requests, else on first use) and kept current
 * from the published feed where snapshots are kept (the publisher writes it beside them), else
 * from the verdict log itself.
 */
export const checkIndex = /* @__PURE__ */ once(() => {
  const feed = verdictFeedStore();
  const replica = replicatedIndex({
    log: verdictLog(),
    ...(feed === undefined ? {} : { source: feedSource(feed, verdictLog()), pollMs: PUBLISHING.tickMs }),
    snapshots: verdictSnapshots(),
    onError: (error) => logger.warn('Verdict replica not synced', { error }),
    onGap: (gaps) => logger.warn('Verdict log gap', { gaps }),
    onAnswer: recordReplicaAge,
  });
  if (config.initializedAhead) replica.warm();
  return replica;
});
/** Check-index reads that are never cached, for decisions that write (report, review). */
export const verdicts = /* @__PURE__ */ once(() =>
  checkIndexRepository(documentClient(), config.tableName, { ttlMs: 0, maxEntries: 0 }),
);
export const lists = /* @__PURE__ */ table(lifecycleRepository);
export const taxii = /* @__PURE__ */ table(taxiiRepository);
export const reportDirectory = /* @__PURE__ */ table(reportDirectoryRepository);
/** The stores of the threat lifecycle (reports, reviews). */
export const lifecycle = /* @__PURE__ */ once(() => ({
  store: activity(),
  verdicts: verdicts(),
  directory: directory(),
  suffixes: suffixes(),
}));
export const cursors = /* @__PURE__ */ once(() => {
  const location = config.cursorKeys;
  return cursorCodec('secretArn' in location ? secretCursorKeys(location.secretArn) : () => location.keySet);
});
export const listSnapshots = /* @__PURE__ */ once(() => {
  const location = config.listSnapshots;
  return 'bucket' in location ? s3SnapshotStore(objects(), location.bucket) : fileSnapshotStore(location.dir);
});
/** The check's external lists, loaded like the replica (at init only ahead of requests) and refreshed in the background. */
export const externalSources = /* @__PURE__ */ once(() => {
  const snapshots = listSnapshots();
  const sources = refreshingSources(
    () =>
      loadExternalSources(snapshots, readShippedEthList, {
        onError: (source, error) => logger.warn('List snapshot not loaded', { source, error }),
      }),
    { onError: (error) => logger.error('External lists not loaded', { error }) },
  );
  if (config.initializedAhead) sources.warm();
  return sources.get;
});
/**
 * The stage's egress policy, for every outbound call: `http` to loopback only where the local
 * runtime allows it (`WEBHOOK_ALLOW_LOOPBACK`, never in AWS).
 */
const egressPolicy = (): EgressPolicy => ({ allowLoopback: config.webhookAllowLoopback });
/** The check's list source: the configured list URLs, under the egress policy. */
export const listReader = /* @__PURE__ */ once(() =>
  httpListReader({ policy: egressPolicy(), resolve: systemResolver }),
);
/** The hash-prefix blocklist's artifacts (S3 in AWS, a directory or the process's memory locally). */
export const blocklistArtifacts = /* @__PURE__ */ once(() => {
  const location = config.blocklistArtifacts;
  if (location === undefined) return memoryArtifactStore();
  return 'bucket' in location ? s3ArtifactStore(objects(), location.bucket) : fileArtifactStore(location.dir);
});
/** In AWS the signer publishes the public keys beside the artifacts, since the key set route may not read the secret. */
const publishedBlocklistKeys = /* @__PURE__ */ once(() => {
  const location = config.blocklistArtifacts;
  return location !== undefined && 'bucket' in location ? s3PublishedKeys(objects(), location.bucket) : undefined;
});
/** The hash-prefix blocklist's copy of the verdicts, from the same snapshots and log as the check's (one per process). */
export const blocklistVerdicts = /* @__PURE__ */ once(() =>
  blocklistService({
    log: verdictLog(),
    snapshots: verdictSnapshots(),
    artifacts: blocklistArtifacts(),
    ...(config.blocklistExternalLists
      ? {
          lists: {
            version: () => externalListsVersion(listSnapshots()),
            load: () =>
              loadExternalLists(listSnapshots(), readShippedEthList, {
                onError: (source, error) => logger.warn('List snapshot not loaded', { source, error }),
              }),
          },
          onListsError: (error: unknown) => logger.error('External lists not published', { error }),
        }
      : {}),
    onPollError: (error: unknown) => logger.warn('Blocklist verdicts not polled', { error }),
    suffixes: suffixes(),
  }),
);
/**
 * The blocklist as the signing route answers it: each version with its manifest, signed with the
 * keys of a secret only that function reads in AWS (a file locally), read at the first signature.
 */
export const blocklist = /* @__PURE__ */ once(() => {
  const verdicts = blocklistVerdicts();
  const location = config.blocklistSigningKeys;
  const keys = 'secretArn' in location ? secretSigningKeys(location.secretArn) : fileSigningKeys(location.file);
  const issue = manifestIssuer({
    keys: () => keys.load(),
    publish: (set) => publishedBlocklistKeys()?.publish(set) ?? Promise.resolve(),
  });
  const manifests = async (content: Parameters<typeof issue>[0]) => {
    const manifest = await issue(content);
    if (manifest === undefined) logger.error('No blocklist signing key: run `npm run admin -- blocklist rotate-key`');
    return manifest;
  };
  return { version: () => verdicts.version(manifests), confirm: verdicts.confirm };
});
/** The public keys the key set route answers: as the signer published them in AWS, from the key file locally. */
export const blocklistKeys = /* @__PURE__ */ once((): PublishedKeySource => {
  const published = publishedBlocklistKeys();
  if (published !== undefined) return published.read;
  const location = config.blocklistSigningKeys;
  if ('secretArn' in location) throw new Error('The key set route reads the published keys (BLOCKLIST_BUCKET)');
  return publicKeysOf(fileSigningKeys(location.file));
});
export const blocklistCdnUrl = (): string | undefined => config.blocklistCdnUrl;
export const now = (): number => Date.now();
/** What the verdict snapshot job reads and writes: the log, the snapshots, the blocklist's artifacts, the clock. */
export const snapshotJob = /* @__PURE__ */ once(() => ({
  log: verdictLog(),
  snapshots: verdictSnapshots(),
  artifacts: blocklistArtifacts(),
  now,
}));
/** What the list sync reads and writes: the configured lists, their snapshots and the list reader. */
export const listSync = /* @__PURE__ */ once(() => ({
  feeds: parseFeeds(config.listUrls),
  store: listSnapshots(),
  read: listReader(),
  suffixes: suffixes(),
}));
/** The platform's timers, for waits with a bound. */
export const timer = systemTimer;

/** Webhooks and their deliveries. */
export const webhooks = /* @__PURE__ */ table(webhookRepository);
/** Seals webhook signing secrets: KMS in AWS, a key file locally. */
export const webhookSealer = /* @__PURE__ */ once(() => {
  const setting = config.webhookSecrets;
  return 'aws' in setting
    ? kmsSealer(
        underFailurePolicy('KMS', (transport) => new KMSClient(transport)),
        setting.aws,
      )
    : localSealer(setting.local);
});
/** Where a receiver's name is resolved, and which addresses it may have. */
export const webhookReceivers = /* @__PURE__ */ once(() => ({
  policy: egressPolicy(),
  resolve: systemResolver,
}));
/** The queue deliveries go through: SQS in AWS, the local runtime's in-process queue otherwise. */
export const webhookQueue = /* @__PURE__ */ once((): Enqueue => {
  const url = config.webhookQueueUrl;
  if (url === undefined) return inProcessEnqueue;
  const queue = sqsEnqueue(sqsClient('webhook queue'), url);
  return (delivery) => queue.enqueue(delivery);
});
/** What creating a webhook needs: its store, the sealer of its secret (built on first use), the URL rules. */
export const webhookCreation = /* @__PURE__ */ once(() => ({
  hooks: webhooks(),
  sealer: {
    seal: (secret: string) => webhookSealer().seal(secret),
    open: (sealed: string) => webhookSealer().open(sealed),
  },
  receivers: webhookReceivers(),
  now,
}));
/** What a test event needs: the webhook, its deliveries and the delivery queue. */
export const webhookTesting = /* @__PURE__ */ once(() => ({
  hooks: webhooks(),
  deliveries: webhooks(),
  enqueue: webhookQueue(),
  now,
}));
/** The verdict log as the webhook event generator reads it. */
export const webhookChangeLog = /* @__PURE__ */ table(changeLogReader);
/** Every organization's records of a content, as the webhook event generator reads them. */
export const webhookAssetRecords = /* @__PURE__ */ table(assetRecordsReader);
/** What one delivery attempt needs: the webhook, its sealed secret, the checked sender, the stage's timing. */
export const webhookDelivery = /* @__PURE__ */ once((): DeliveryDeps => {
  const { policy, resolve } = webhookReceivers();
  const timeoutMs = config.webhookTimeoutMs;
  const agents = keepAliveAgents();
  return {
    // A disabled or deleted webhook stops getting deliveries within a second.
    hooks: cachedHooks(webhooks(), 1000),
    deliveries: webhooks(),
    sealer: rememberingSealer(webhookSealer()),
    send: (url, body, headers) => sendWebhook(url, body, headers, { policy, resolve, timeoutMs, agents }),
    now,
    backoffBaseMs: config.webhookBackoffMs,
    leaseMs: 2 * timeoutMs + 1000,
    sendBudgetMs: timeoutMs,
  };
});
/** The asset check over `index` (the replica, or uncached reads where a decision stands on it), with the external lists. */
export const checkerOver = (index: CheckerOptions['index']) =>
  createChecker({ timer: systemTimer, index, sources: externalSources(), suffixes: suffixes() });
/** Intake: disputes and unblocking decide on what the check answers now (uncached index reads, the external lists). */
export const disputeDeps = /* @__PURE__ */ once(() => ({
  disputes: disputeRepository(documentClient(), config.tableName),
  checker: checkerOver(verdicts()),
  lists: lists(),
  userEmail: userEmailOf(documentClient(), config.tableName),
  suffixes: suffixes(),
}));
export const unblockDeps = /* @__PURE__ */ once(() => ({
  ...disputeDeps(),
  store: activity(),
  verdicts: verdicts(),
  blockingThreats: blockingThreatsOf(documentClient(), config.tableName),
}));

export const scans = /* @__PURE__ */ table(scanRepository);
/** What files detections as reports: the detections store, the check, the organization's assets and lists, and the lifecycle. */
export const detectionFiling = /* @__PURE__ */ once(() => ({
  ...detectionDeps(),
  checker: disputeDeps().checker,
  assets: assets(),
  reports: { ...lifecycle(), ignoredHosts: config.reportIgnoredDomains },
  lists: lists(),
  suffixes: suffixes(),
}));
/** What the scan worker needs: the check, the organization's brands and assets, and the lifecycle to file reports. */
export const scanWorkerDeps = /* @__PURE__ */ once(() => ({
  scans: scans(),
  checker: disputeDeps().checker,
  directory: directory(),
  assets: assets(),
  reports: { ...lifecycle(), ignoredHosts: config.reportIgnoredDomains },
  isDisputed: (checkKey: string) => disputeDeps().disputes.isDisputed(checkKey),
  suffixes: suffixes(),
  detections: detectionFiling(),
}));
export const scanQueue = /* @__PURE__ */ once(() => {
  const url = config.scanQueueUrl;
  if (url !== undefined) return sqsScanQueue(sqsClient('scan queue'), url);
  return inProcessScanQueue(async (scanIds) => {
    const workers = localWorkers();
    // A bundle run by hand without SCAN_QUEUE_URL: its scans stay PENDING, as with a queue nobody reads.
    if (workers === undefined) return logger.info('Scans left PENDING: no scan queue is configured here', { scanIds });
    await (await workers)
      .runScans(scanIds)
      .catch((error: unknown) => logger.error('Scans not run', { error, scanIds }));
  });
});

export const detections = /* @__PURE__ */ table(detectionRepository);
/** What the healthcheck routes read: open work, settings, detection runs, and the stage's thresholds. */
export const healthcheckSources = /* @__PURE__ */ once(() => ({
  now,
  thresholds: () => config.healthcheckThresholds,
  settings: settings(),
  work: openWork(),
  findings: healthcheckFindings(),
  detections: detections(),
  directory: directory(),
}));
export const detectionDeps = /* @__PURE__ */ once(() => ({ store: detections(), directory: directory() }));
/**
 * How CT logs are reached: the system's resolver, or, where a recorded log stands in for every
 * log (locally), the recording's names (read per call: a test points the stage at a recording
 * after the modules are loaded).
 */
export const ctLogEgress = /* @__PURE__ */ once(
  (): Egress => ({
    policy: egressPolicy(),
    resolve: (name) => (config.detectionCtRecording === undefined ? systemResolver : recordedLogNames)(name),
    agents: keepAliveAgents(),
  }),
);
/** What writing and validating configs needs: the stores and the egress policy the configs' URLs must pass. */
export const detectionConfigDeps = /* @__PURE__ */ once(() => ({
  ...detectionDeps(),
  outbound: (url: string) => refusalOf(url, ctLogEgress().policy, ctLogEgress().resolve),
}));
/** The queue of detection runs: SQS in AWS, the local runtime's in-process queue otherwise; the request never waits for a run. */
export const detectionQueue = /* @__PURE__ */ once(() => {
  const url = config.detectionQueueUrl;
  if (url !== undefined) return sqsRunQueue(sqsClient('detection run queue'), url);
  return inProcessRunQueue(async (runs) => {
    const workers = localWorkers();
    if (workers === undefined) {
      return logger.info('Detection runs left QUEUED: no run queue is configured here', {
        runIds: runs.map((run) => run.runId),
      });
    }
    await (await workers)
      .runDetections(runs)
      .catch((error: unknown) => logger.error('Detection runs not run', { error }));
  });
});

/**
 * Where the check's sampled unknown content goes: in AWS each batch is one log line, which a
 * subscription filter on the check's log group hands to the sample worker; locally, the in-process
 * ASSET_CHECK feed of `LOCAL_WORKERS`.
 */
export const checkSamples = /* @__PURE__ */ once(() => {
  // Locally, the feed is imported before the first batch, so a flush hands the batch over at once.
  void localWorkers();
  return checkSampler({
    rate: config.checkSampleRate,
    batch: 25,
    maxWaitMs: 10_000,
    seenLimit: 10_000,
    emit: (contents) => {
      if (!feedCheckSamplesLocally(contents)) logger.info(SAMPLES_MESSAGE, { samples: contents });
    },
  });
});
