/**
 * `npm run capacity`: the hottest partitions of the table and its indexes at the service's scale
 * targets, projected from a bounded synthetic workload run through the real
 * handlers, as their routes and workers, on a DynamoDB Local of its own. Every command of the
 * functions' table client asks for its consumed capacity (`INDEXES`); each call's units are
 * attributed to the partition key values it touched, as the command names them, so whatever key
 * design the repositories have is what is measured. The rules for units are in `UNIT_RULES`.
 * The check containers poll the published verdict feed (objects, not table partitions): its GETs
 * are counted per poll and printed against S3's 5,500 GET/s per prefix; the one publisher's reads
 * of the log's shards are the table load the polling puts. Beside each target, the same
 * measurements re-keyed to the former layout (one log partition per hour, polled by every
 * container; one export partition per type, status and month; one group-removal partition; one
 * counter item per day or month in each counter shard).
 * Transaction conflicts count as load too: every item a transaction writes is held for the
 * transaction's latency (`TRANSACTION_MS`), so one item serializes at most 1 s / that many
 * transactions a second; transactions writing it faster conflict (TransactionConflict, which
 * DynamoDB Local never answers), and each conflict is retried, adding more. An item passes when its
 * transactions a second at the target, projected as partitions' units are, keep it busy at most
 * `HEADROOM` of the time (on average at most 0.5 other transactions in flight as one arrives).
 * Usage: npm run capacity [-- --scale <0.25..4>]
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context, SQSEvent } from 'aws-lambda';
import { key, VERDICT_LOG } from '../../shared/db/keys.ts';
import { DELTA_PREFIXES, POINTER_COPIES } from '../../shared/db/verdict-feed-store.ts';
import { mapConcurrently } from '../../shared/domain/core/concurrency.ts';
import {
  type FeedStore,
  feedSource,
  LOG_TIMING,
  PUBLISHING,
  positionAt,
  runPublisher,
} from '../../shared/domain/verdict-feed/index.ts';
import {
  cancellations,
  conflicts,
  type Definition,
  meter,
  overlaps,
  shapeOf,
  TABLE,
  tagged,
  UNIT_RULES,
  type Usage,
  usage,
} from './capacity-meter.ts';

process.env.CURSOR_SECRET ??= 'capacity-secret';
process.env.AWS_REGION ??= 'us-east-1';
process.env.LOG_LEVEL = 'SILENT';
process.env.LISTS_DIR ??= 'infra/local/lists';
process.env.AWS_ACCESS_KEY_ID ??= 'capacity';
process.env.AWS_SECRET_ACCESS_KEY ??= 'capacity';
process.env.DEAD_LETTER_QUEUE_URL ??= 'http://127.0.0.1:9/capacity-dead-letters';
process.env.ACCESS_LOG_SAMPLE_RATE = '0';

/** The replica's poll interval (the publisher's tick): the idle poll is measured one interval after the last. */
const POLL_INTERVAL_MS = PUBLISHING.tickMs;
/** The polling replica answers a lookup this often: a busy container, whose own schedule decides when it polls. */
const LOOKUP_EVERY_MS = 5;
/** The former design's replicas polled the log itself, once a second. */
const FORMER_POLL_INTERVAL_MS = 1_000;
const LIMITS = { wcu: 1_000, rcu: 3_000 };
/** S3 serves at least this many GETs a second per prefix. */
const S3_GETS_PER_PREFIX = 5_500;
const HEADROOM = 0.5;
/** How long a transaction holds the items it writes: DynamoDB transactions take ~10–20 ms; the upper end. */
const TRANSACTION_MS = 20;

type Handler = (event: never, context: Context) => Promise<APIGatewayProxyResultV2>;
type Response = { statusCode: number; body: unknown };

const progress = (line: string) => process.stderr.write(`  capacity: ${line}\n`);

const sqsEvent = (body: unknown): SQSEvent => ({
  Records: [
    {
      messageId: randomUUID(),
      receiptHandle: 'capacity',
      body: JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'capacity',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:activity-ingest-queue',
      awsRegion: 'us-east-1',
    },
  ],
});

type Scenario = {
  id: 'a' | 'b' | 'c' | 'd' | 'e';
  title: string;
  /** Target operations a second, and the operations the run measured. */
  rate: number;
  measured: number;
  note: string;
  /** Units a second by partition at the target, from what the run measured. */
  projected: Map<string, { rcu: number; wcu: number }>;
  /** The same at the former layout. */
  former: Map<string, { rcu: number; wcu: number }>;
  /** Object GETs a second on the busiest prefix, where the target polls the feed. */
  s3?: { perPrefix: number; note: string };
  /** Transactions a second writing each item (`<PK> / <SK>`) at the target. */
  items: Map<string, number>;
};

type Units = Map<string, { rcu: number; wcu: number }>;

/**
 * A partition of the current layout as the former one had it: the log's shards of a day were one
 * partition per hour (the run takes minutes, so one), the export's shards one partition, the
 * group removals of every organization one partition.
 */
const formerPartition = (id: string): string => {
  const [part, partition] = id.split('\u0000') as [string, string];
  if (part === TABLE && /^VERDICTS#\d+#\d{13}$/.test(partition)) return `${part}\u0000VERDICTS#<hour>`;
  if (part === TABLE && /^VERDICTS#\d{13}$/.test(partition)) return `${part}\u0000VERDICTS#<hour>`;
  if (part === TABLE && partition.startsWith('GROUP_REMOVAL')) return `${part}\u0000GROUP_REMOVAL`;
  if (part === 'verdictsByMonth') return `${part}\u0000${partition.replace(/^(.*#\d{4}-\d{2})#\d+$/, '$1')}`;
  return id;
};
const rekeyed = (units: Units): Units => {
  const former: Units = new Map();
  for (const [id, u] of units) {
    const to = formerPartition(id);
    const held = former.get(to) ?? { rcu: 0, wcu: 0 };
    former.set(to, { rcu: held.rcu + u.rcu, wcu: held.wcu + u.wcu });
  }
  return former;
};
const plus = (a: Units, b: Units): Units => {
  const sum: Units = new Map(a);
  for (const [id, u] of b) {
    const held = sum.get(id) ?? { rcu: 0, wcu: 0 };
    sum.set(id, { rcu: held.rcu + u.rcu, wcu: held.wcu + u.wcu });
  }
  return sum;
};
const isLog = (id: string) => id.startsWith(`${TABLE}\u0000VERDICTS#`);

/** Transactional writes by scenario, then by item (`<PK> / <SK>`): each attempt, committed or cancelled. */
const transactions = new Map<string, Map<string, number>>();
const itemOf = (entry: Record<string, { Key?: Record<string, unknown>; Item?: Record<string, unknown> }>) => {
  const [operation] = Object.values(entry);
  const keyed = operation?.Key ?? operation?.Item ?? {};
  const text = (value: unknown) =>
    typeof value === 'object' && value !== null ? String(Object.values(value)[0]) : String(value);
  return `${text(keyed.PK)} / ${text(keyed.SK)}`;
};
/** Counts the items of every transaction the functions' table client sends, by the scenario sending it. */
const countTransactions = (client: DynamoDBDocumentClient) =>
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const tag = tagged.getStore();
      if (tag !== undefined && context.commandName === 'TransactWriteItemsCommand') {
        const byItem = transactions.get(tag.scenario) ?? new Map<string, number>();
        transactions.set(tag.scenario, byItem);
        const entries = ((args.input as { TransactItems?: [] }).TransactItems ?? []) as Parameters<typeof itemOf>[0][];
        for (const item of new Set(entries.map(itemOf))) byItem.set(item, (byItem.get(item) ?? 0) + 1);
      }
      return next(args);
    },
    { step: 'initialize', name: 'capacityTransactions' },
  );
/** Transactions a second on each item at `rate` operations a second, from `measured` (as `project`). */
const projectItems = (scenario: string, rate: number, measured: number): Map<string, number> =>
  new Map([...(transactions.get(scenario) ?? [])].map(([item, n]) => [item, (n * rate) / measured]));
/** The counter items of a period's slots (`DAY#<day>#<k>`, `MONTH#<month>#<k>`) as the one item the former layout had. */
const formerItems = (items: Map<string, number>): Map<string, number> => {
  const former = new Map<string, number>();
  for (const [item, rate] of items) {
    const to = item.replace(/^(METRICS#.* \/ (?:DAY|MONTH)#[\d-]+)#\d+$/, '$1');
    former.set(to, (former.get(to) ?? 0) + rate);
  }
  return former;
};
/** The share of the time an item is held by a transaction at `rate` transactions a second. */
const busy = (rate: number) => (rate * TRANSACTION_MS) / 1000;

/**
 * Units a second at `rate` operations a second, from `measured` operations: each partition's units
 * times rate / measured. The run spreads its operations over the same entities as the target (its
 * organizations, records, contents), so an entity's partition gets its share. A partition of one
 * record or content is overstated when the target runs more operations a second than were measured
 * (it is touched as often as the run touched it): an upper bound, as every other figure.
 */
const project = (scenario: string, rate: number, measured: number) => {
  const projected = new Map<string, { rcu: number; wcu: number }>();
  const scale = rate / measured;
  for (const [id, entry] of usage.get(scenario) ?? []) {
    projected.set(id, { rcu: entry.rcu * scale, wcu: entry.wcu * scale });
  }
  return projected;
};

/**
 * The least time a Lambda container spends on one invocation (Lambda bills whole milliseconds, and
 * the runtime's next-invocation round trip comes on top): a check measured faster than this here
 * still keeps its container this long.
 */
const MIN_INVOCATION_MS = 1;

/** The run is bounded: a run that takes longer than this has stalled. */
const RUN_LIMIT_MS = 10 * 60_000;

const main = async () => {
  setTimeout(() => {
    console.error(`capacity: gave up after ${RUN_LIMIT_MS / 60_000} minutes`);
    process.exit(1);
  }, RUN_LIMIT_MS).unref();
  const at = process.argv.indexOf('--scale');
  const scale = at === -1 ? 1 : Number(process.argv[at + 1]) || 1;
  const started = performance.now();
  const write = process.stdout.write.bind(process.stdout);
  // Handlers publish their metrics (EMF) on stdout as in Lambda: dropped until the report is printed.
  process.stdout.write = (() => true) as typeof process.stdout.write;
  const out: string[] = [];
  const print = (line = '') => out.push(line);

  const { startDynamo, ensureTable } = await import('../../infra/local/dynamo.ts');
  progress('starting DynamoDB Local on a free loopback port ...');
  const dynamo = await startDynamo();
  const tableName = `capacity-${randomUUID().slice(0, 8)}`;
  process.env.TABLE_NAME = tableName;
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  try {
    await ensureTable(dynamo.endpoint, tableName);
    const { TABLE_DEFINITION } = await import('../../infra/table-definition.ts');
    const { createDocumentClient } = await import('../../shared/db/client.ts');
    const { loadFixture, parseFixture } = await import('../../infra/local/fixture.ts');
    const raw = createDocumentClient(dynamo.endpoint);

    const ORGS = Array.from({ length: 100 }, (_, i) => `cap-org-${String(i + 1).padStart(3, '0')}`);
    const SOLO = 'cap-solo';
    const orgs = [...ORGS, SOLO];
    const keyOf = (org: string) => `capacity-key-${org}-0123456789`;
    progress(`seeding ${orgs.length} organizations, a brand and a key each ...`);
    await loadFixture(
      raw,
      tableName,
      parseFixture({
        organizations: orgs.map((slug) => ({
          slug,
          name: slug,
          brands: [{ slug: 'main', name: 'Main' }],
          // The busy organization spreads its day counters over their shards.
          ...(slug === SOLO ? { featureFlags: ['sharded-counters'] } : {}),
        })),
        apiKeys: orgs.map((org) => ({ key: keyOf(org), organization: org })),
      }),
      () => undefined,
    );

    // Snapshots and the published feed in a directory, as `npm start` keeps them: the check
    // containers (the runtime's replica, and the one polling below) start from the snapshot and poll the feed.
    const verdictsDir = await mkdtemp(join(tmpdir(), 'capacity-verdicts-'));
    process.env.VERDICTS_DIR = verdictsDir;
    const { verdictFeed } = await import('../../shared/db/verdict-log.ts');
    const { fileVerdictSnapshotStore } = await import('../../shared/db/verdict-snapshot-store.ts');
    const { snapshotVerdicts } = await import('../../shared/domain/verdict-feed/index.ts');
    await snapshotVerdicts(verdictFeed(raw, tableName), fileVerdictSnapshotStore(verdictsDir), Date.now);
    const runtime = await import('../../shared/runtime.ts');
    meter(runtime.tableClient(), raw, tableName, TABLE_DEFINITION as Definition);
    countTransactions(runtime.tableClient());
    const { apiEvent, call } = await import('../fixtures/api-event.ts');
    const { lambdaContext } = await import('../../infra/local/lambda-context.ts');
    const { asWorker } = await import('../fixtures/workers.ts');
    const ingest = asWorker('ingest-activity', (await import('../../functions/activity/ingest.ts')).handler);
    const createReport = (await import('../../functions/reports/create.ts')).handler as unknown as Handler;
    const check = (await import('../../functions/check/check.ts')).handler as unknown as Handler;
    const { replicatedIndex } = await import('../../shared/domain/verdict-feed/index.ts');
    const statuses = new Map<string, number>();
    const count = (label: string) => statuses.set(label, (statuses.get(label) ?? 0) + 1);

    /** One activity change through the ingest worker, redelivered (as SQS would) while it fails, up to 5 receives. */
    const ingestOne = (scenario: string, change: unknown) =>
      tagged.run({ scenario }, async () => {
        for (let receive = 1; receive <= 5; receive++) {
          // Each receive is an invocation with a deadline of its own, not one set when the run started.
          const result = await ingest(sqsEvent(change), lambdaContext('ingest-activity'));
          if ((result?.batchItemFailures ?? []).length === 0) return count(`${scenario}: ingest applied`);
          count(`${scenario}: ingest redelivered`);
        }
        count(`${scenario}: ingest failed 5 receives`);
      });
    const route = (scenario: string, handler: Handler, event: APIGatewayProxyEventV2) =>
      tagged.run({ scenario }, async (): Promise<Response | undefined> => {
        const response = await call(handler, event).catch((error: unknown) => {
          count(`${scenario}: ${error instanceof Error ? error.name : 'error'}`);
          return undefined;
        });
        if (response) count(`${scenario}: HTTP ${response.statusCode}`);
        return response;
      });

    const scenarios: Scenario[] = [];
    const minute = (offset: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, 0) + offset * 1000).toISOString();

    // (b) + (e) + (a): verdict changes through the ingest worker across 100 organizations, while a
    // replica polls the verdict log every second (e) and a check container answers checks (a).
    const threatsPerOrg = Math.max(1, Math.round(3 * scale));
    const threats = ORGS.flatMap((org) =>
      Array.from({ length: threatsPerOrg }, (_, k) => ({
        org,
        id: `t-${k}`,
        content: `https://${org}-lure-${k}.example/claim`,
      })),
    );
    const threat = (t: (typeof threats)[number], status: string, at: number) => ({
      organization: t.org,
      kind: 'threat',
      id: t.id,
      content: t.content,
      assetType: 'URL',
      status,
      brands: ['main'],
      createdAt: minute(0),
      updatedAt: minute(at),
    });
    // The one publisher, reading every shard of the log each tick while the changes run.
    const feedStore = runtime.verdictFeedStore();
    if (feedStore === undefined) throw new Error('capacity: the verdict feed has no location');
    const gets = { pointer: 0, delta: 0 };
    const counted: FeedStore = {
      ...feedStore,
      pointer: () => {
        gets.pointer++;
        return feedStore.pointer();
      },
      delta: (seq) => {
        gets.delta++;
        return feedStore.delta(seq);
      },
    };
    const publisher = runtime.publisher();
    let ticks = 0;
    const publishing = tagged.run({ scenario: 'publish' }, () =>
      runPublisher(
        {
          ...publisher,
          read: async () => {
            ticks++;
            return publisher.read();
          },
        },
        { tickMs: PUBLISHING.tickMs },
      ),
    );
    await tagged.run({ scenario: 'load' }, () => publisher.tick());
    const replica = replicatedIndex({
      log: runtime.verdictLog(),
      source: feedSource(counted, runtime.verdictLog()),
      snapshots: runtime.verdictSnapshots(),
      pollMs: POLL_INTERVAL_MS,
    });
    // A container's start (the snapshot, then one read of the log since it) is not a per-second cost.
    await tagged.run({ scenario: 'load' }, () => replica.sync());
    await tagged.run({ scenario: 'load' }, () =>
      call(
        check,
        apiEvent({
          method: 'POST',
          path: '/asset/check',
          apiKey: keyOf(ORGS[0] as string),
          body: { content: 'https://warm.example/' },
        }),
      ),
    );
    await sleep(POLL_INTERVAL_MS);
    await tagged.run({ scenario: 'idle' }, () => replica.sync());
    progress(
      `(b) ${threats.length * 2} verdict changes (block, then unblock) through ingest-activity, 8 at a time; the publisher every ${PUBLISHING.tickMs} ms; (e) one replica answering a lookup every ${LOOKUP_EVERY_MS} ms, polling the feed when due (a tick: ${POLL_INTERVAL_MS} ms); (a) one check container ...`,
    );
    let changesDone = false;
    let polls = 0;
    const ticksBefore = ticks;
    gets.pointer = 0;
    gets.delta = 0;
    // A container answering lookups all the time: it polls when the pointer is due (and again
    // shortly while it is late), so its GETs a second are what the fleet's would be.
    const poller = (async () => {
      while (!changesDone) {
        await sleep(LOOKUP_EVERY_MS);
        await tagged.run({ scenario: 'e' }, () => replica.lookup(['capacity-poll.example']));
      }
    })();
    let checks = 0;
    const checkMs: number[] = [];
    const checker = (async () => {
      while (!changesDone) {
        // Callers of many organizations, as at the target: no one key's rate limit is what is measured.
        const key = keyOf(ORGS[checks % ORGS.length] as string);
        const t = threats[checks % threats.length] as (typeof threats)[number];
        const began = performance.now();
        await route(
          'a',
          check,
          apiEvent({ method: 'POST', path: '/asset/check', apiKey: key, body: { content: t.content } }),
        );
        checkMs.push(performance.now() - began);
        checks++;
        // One check container among the many the target needs: it takes a request at a time.
        await sleep(2);
      }
    })();
    const changesStarted = performance.now();
    let changes = 0;
    for (const [status, at] of [
      ['BLOCKED', 60],
      ['PENDING', 120],
    ] as const) {
      await mapConcurrently(threats, 8, async (t) => {
        await ingestOne('b', threat(t, status, at));
        changes++;
        if (changes % 200 === 0) progress(`(b) ${changes} / ${threats.length * 2}`);
      });
    }
    const changeSeconds = (performance.now() - changesStarted) / 1000;
    changesDone = true;
    await Promise.all([poller, checker]);
    // Each poll reads the pointer once.
    polls = gets.pointer;
    await publishing.stop();
    const publishTicks = ticks - ticksBefore;
    const changeRate = changes / changeSeconds;
    progress(
      `(b) ${changes} changes in ${changeSeconds.toFixed(1)} s (${changeRate.toFixed(0)}/s); the publisher ${publishTicks} ticks; (e) ${polls} polls (${gets.pointer} pointer and ${gets.delta} delta GETs); (a) ${checks} checks`,
    );

    // The publisher's reads at 1,000 changes/s. A tick reads, in each shard, the changes since the
    // last position (the settle window and a tick): at the target rate, rate / shards × that
    // window of items, their size measured on the log's own items, at least 1 RCU a call (strongly
    // consistent). The former poll read the same window of every shard from one partition.
    const TARGET_CHANGE_RATE = 1000;
    const ticksPerSecond = 1000 / PUBLISHING.tickMs;
    const windowSeconds = (LOG_TIMING.settleMs + PUBLISHING.tickMs) / 1000;
    const sample: Record<string, unknown>[] = [];
    const day = positionAt(Math.floor(Date.now() / VERDICT_LOG.bucketMs) * VERDICT_LOG.bucketMs);
    for (let shard = 0; shard < VERDICT_LOG.shards && sample.length < 100; shard++) {
      const { Items = [] } = await raw.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': key.verdictLogPartition(shard, day) },
        }),
      );
      sample.push(...Items);
    }
    const itemBytes = sample.reduce((sum, item) => sum + JSON.stringify(item).length, 0) / Math.max(1, sample.length);
    const windowUnits = (items: number) => Math.max(1, Math.ceil((items * itemBytes) / 4096));
    const shardTick = windowUnits((TARGET_CHANGE_RATE / VERDICT_LOG.shards) * windowSeconds);
    const publisherLoad: Units = new Map();
    for (const [id, entry] of usage.get('publish') ?? []) {
      const perTick = isLog(id) ? shardTick * (entry.calls / publishTicks) : entry.rcu / publishTicks;
      publisherLoad.set(id, { rcu: perTick * ticksPerSecond, wcu: (entry.wcu / publishTicks) * ticksPerSecond });
    }
    const formerPoll = windowUnits(TARGET_CHANGE_RATE * windowSeconds);
    const formerPolls = (containers: number): Units =>
      new Map([
        [`${TABLE}\u0000VERDICTS#<hour>`, { rcu: (formerPoll * containers * 1000) / FORMER_POLL_INTERVAL_MS, wcu: 0 }],
      ]);
    /** A container's GETs a second: its pointer, and at the target change rate a delta at every tick. */
    /** A container's polls a second, as measured (at least one a tick). */
    const pollsPerSecond = Math.max(polls / changeSeconds, 1000 / POLL_INTERVAL_MS);
    const deltasPerPoll = Math.max(gets.delta / Math.max(1, polls), 1000 / PUBLISHING.tickMs / pollsPerSecond);
    const s3Of = (containers: number) => {
      const pointerPerCopy = (containers * pollsPerSecond * (gets.pointer / Math.max(1, polls))) / POINTER_COPIES;
      // Every container reads each delta once, within a poll interval of its publication; the
      // delta's prefix is read again only `DELTA_PREFIXES` deltas later.
      const perDeltaPrefix = containers * Math.min(1, deltasPerPoll);
      return {
        perPrefix: Math.max(pointerPerCopy, perDeltaPrefix),
        note: `S3 GETs: ${(containers * pollsPerSecond * (1 + deltasPerPoll)).toFixed(0)}/s in all; pointer ${pointerPerCopy.toFixed(0)}/s on each of ${POINTER_COPIES} copies, each delta read by ${containers} containers within the second it appears (one of ${DELTA_PREFIXES} prefixes in turn) → busiest prefix ${Math.max(pointerPerCopy, perDeltaPrefix).toFixed(0)} GET/s of ${S3_GETS_PER_PREFIX.toLocaleString('en')} (${((100 * Math.max(pointerPerCopy, perDeltaPrefix)) / S3_GETS_PER_PREFIX).toFixed(0)}%)`,
      };
    };

    const bWrites = project('b', 1000, changes);
    scenarios.push({
      id: 'b',
      title: '1,000 verdict changes/s (threats blocked and unblocked through ingest-activity, 100 organizations)',
      rate: 1000,
      measured: changes,
      note: `${changes} changes measured (${threats.length} threats × block + unblock), plus the publisher's reads of the log (${publishTicks} ticks measured: ${shardTick} RCU a shard a tick for ${windowSeconds} s of changes at the target rate, items of ${itemBytes.toFixed(0)} bytes; ${ticksPerSecond} ticks/s)`,
      projected: plus(bWrites, publisherLoad),
      former: rekeyed(bWrites),
      items: projectItems('b', 1000, changes),
    });

    // (e) 2,000 containers poll the feed: no table read per container; the table carries the publisher.
    const CONTAINERS = 2000;
    const idleGets = 1;
    const ePolls: Units = new Map();
    for (const [id, entry] of usage.get('e') ?? []) {
      ePolls.set(id, { rcu: (entry.rcu / Math.max(1, polls)) * CONTAINERS * pollsPerSecond, wcu: 0 });
    }
    scenarios.push({
      id: 'e',
      title: `${CONTAINERS.toLocaleString('en')} check containers polling the verdict feed (${pollsPerSecond.toFixed(1)} polls/s each, measured, log at ${TARGET_CHANGE_RATE.toLocaleString('en')} changes/s)`,
      rate: CONTAINERS,
      measured: polls,
      note: `${polls} polls measured at ${changeRate.toFixed(0)} changes/s: ${(usage.get('e')?.size ?? 0) === 0 ? 'no table read' : 'table reads below'}, ${(gets.pointer / Math.max(1, polls)).toFixed(2)} pointer + ${(gets.delta / Math.max(1, polls)).toFixed(2)} delta GETs a poll (an idle feed's poll: ${idleGets} GET); the table carries the one publisher's reads; former: every container read the log window (${formerPoll.toFixed(1)} RCU a poll) itself`,
      projected: plus(publisherLoad, ePolls),
      former: formerPolls(CONTAINERS),
      items: projectItems('e', CONTAINERS, Math.max(1, polls)),
      s3: s3Of(CONTAINERS),
    });

    // (a) Checks answer from memory: the containers the rate needs (Little's law on the measured
    // check duration) each poll the feed as in (e), plus what each check reads itself.
    const CHECKS = 10_000;
    const medianMs = [...checkMs].sort((x, y) => x - y)[Math.floor(checkMs.length / 2)] ?? 0;
    const containers = Math.ceil((CHECKS * Math.max(MIN_INVOCATION_MS, medianMs)) / 1000);
    const checkReads: Units = new Map();
    for (const [id, entry] of usage.get('a') ?? []) {
      const factor = CHECKS / checks;
      checkReads.set(id, { rcu: entry.rcu * factor, wcu: entry.wcu * factor });
    }
    scenarios.unshift({
      id: 'a',
      title: '10,000 checks/s (POST /asset/check, answered from the in-memory replica)',
      rate: CHECKS,
      measured: checks,
      note: `${checks} checks measured, median ${medianMs.toFixed(2)} ms → ${containers} containers busy at 10,000/s (Little's law, at least ${MIN_INVOCATION_MS} ms an invocation: a lower bound, (e) is a fleet's); each polls the feed as in (e); the check's own reads × 10,000 / ${checks}`,
      projected: plus(checkReads, publisherLoad),
      former: plus(rekeyed(checkReads), formerPolls(containers)),
      items: projectItems('a', CHECKS, checks),
      s3: s3Of(containers),
    });

    // (c) 100 organizations × 100 reported assets a minute: reports of one asset each.
    const reportsPerOrg = Math.max(1, Math.round(2 * scale));
    const reports = ORGS.flatMap((org) => Array.from({ length: reportsPerOrg }, (_, k) => ({ org, k })));
    progress(`(c) ${reports.length} reports (one asset each) through create-report, 8 at a time ...`);
    await mapConcurrently(reports, 8, async ({ org, k }) => {
      await route(
        'c',
        createReport,
        apiEvent({
          method: 'POST',
          path: '/report/create',
          apiKey: keyOf(org),
          body: {
            title: `Lure ${k}`,
            description: 'capacity run',
            assets: [{ content: `https://${org}-reported-${k}.example/login` }],
          },
        }),
      );
    });
    scenarios.push({
      id: 'c',
      title: '100 organizations × 100 reported assets/min (POST /report/create, one asset per report)',
      rate: (100 * 100) / 60,
      measured: reports.length,
      note: `${reports.length} reports measured (${reportsPerOrg} per organization)`,
      projected: project('c', (100 * 100) / 60, reports.length),
      former: rekeyed(project('c', (100 * 100) / 60, reports.length)),
      items: projectItems('c', (100 * 100) / 60, reports.length),
    });

    // (d) One organization at 1,000 activity changes/s: reports, threats and takedowns, created then updated.
    // 200 of each kind make 1,000 changes, one second of the target: each item's transactions in the
    // run are its transactions in a second at the target, its share of the records' digests included.
    const records = Math.max(10, Math.round(200 * scale));
    const solo = (kind: string, k: number, at: number, extra: Record<string, unknown>) => ({
      organization: SOLO,
      kind,
      id: `${kind}-${k}`,
      brands: ['main'],
      createdAt: minute(0),
      updatedAt: minute(at),
      ...extra,
    });
    const waves = [
      Array.from({ length: records }, (_, k) => [
        solo('report', k, 0, {}),
        solo('threat', k, 0, { content: `https://solo-lure-${k}.example/`, assetType: 'URL', status: 'BLOCKED' }),
        solo('takedown', k, 0, { status: 'FILED' }),
      ]).flat(),
      Array.from({ length: records }, (_, k) => [
        solo('threat', k, 60, { content: `https://solo-lure-${k}.example/`, assetType: 'URL', status: 'APPROVED' }),
        solo('takedown', k, 60, { status: 'IN_PROGRESS' }),
      ]).flat(),
    ];
    const soloChanges = waves.flat().length;
    progress(`(d) ${soloChanges} activity changes of one organization through ingest-activity, 16 at a time ...`);
    for (const wave of waves)
      await mapConcurrently(wave, 16, async (change) => {
        await ingestOne('d', change);
      });
    scenarios.push({
      id: 'd',
      title: 'one organization at 1,000 activity changes/s (ingest-activity: reports, threats, takedowns)',
      rate: 1000,
      measured: soloChanges,
      note: `${soloChanges} changes measured (${records} each of report, threat, takedown created; threats and takedowns updated)`,
      projected: project('d', 1000, soloChanges),
      former: rekeyed(project('d', 1000, soloChanges)),
      items: projectItems('d', 1000, soloChanges),
    });

    const partLabel = (id: string) => {
      const [part, partition] = id.split('\u0000') as [string, string];
      return { part, shape: shapeOf(partition, orgs) };
    };
    const pct = (value: number, limit: number) => `${((100 * value) / limit).toFixed(0)}%`;
    print(
      `per-partition limits ${LIMITS.wcu.toLocaleString('en')} WCU/s, ${LIMITS.rcu.toLocaleString('en')} RCU/s; a target passes when every partition stays within ${HEADROOM * 100}% of both`,
    );
    print('rules for units:');
    for (const rule of UNIT_RULES) print(`  - ${rule}`);
    print(
      'scaling: a partition’s units × target rate / operations measured (the run spreads its operations over the target’s organizations, so each organization’s partitions get its share)',
    );
    print(
      `transaction conflicts as load: an item a transaction writes is held ${TRANSACTION_MS} ms (a transaction's latency, ~10–20 ms), so it serializes at most ${1000 / TRANSACTION_MS} transactions/s; a target passes when every item is busy at most ${HEADROOM * 100}% of the time (≤ ${(HEADROOM * 1000) / TRANSACTION_MS} transactions/s: on average ≤ ${HEADROOM} others in flight as one arrives, each of them a TransactionConflict and a retry)`,
    );
    let within = 0;
    let formerWithin = 0;
    const itemRowsOf = (items: Map<string, number>) =>
      [...items]
        .map(([item, rate]) => ({
          shape: item
            .split(' / ')
            .map((part) => shapeOf(part, orgs))
            .join(' / '),
          rate,
          load: busy(rate),
        }))
        .sort((x, y) => y.load - x.load);
    const itemLine = (row: { shape: string; rate: number; load: number }) =>
      `${row.shape} ${row.rate.toFixed(1)} transactions/s, busy ${pct(row.load, 1)} of the time  ${row.load <= HEADROOM ? 'within 50%' : 'OVER 50%'}`;
    const rowsOf = (units: Units) =>
      [...units]
        .map(([id, u]) => ({ ...partLabel(id), ...u, load: Math.max(u.wcu / LIMITS.wcu, u.rcu / LIMITS.rcu) }))
        .sort((x, y) => y.load - x.load);
    const formerLines: string[] = [];
    for (const scenario of scenarios.sort((x, y) => x.id.localeCompare(y.id))) {
      const rows = rowsOf(scenario.projected);
      const s3ok = scenario.s3 === undefined || scenario.s3.perPrefix <= HEADROOM * S3_GETS_PER_PREFIX;
      const itemRows = itemRowsOf(scenario.items);
      const ok = rows.every((row) => row.load <= HEADROOM) && s3ok && itemRows.every((row) => row.load <= HEADROOM);
      if (ok) within++;
      const formerRows = rowsOf(scenario.former);
      const formerItemRows = itemRowsOf(formerItems(scenario.items));
      const formerPartitionsOk = formerRows.every((row) => row.load <= HEADROOM);
      const formerOk = formerPartitionsOk && formerItemRows.every((row) => row.load <= HEADROOM);
      if (formerOk) formerWithin++;
      const hottest = formerRows[0];
      const hottestItem = formerItemRows[0];
      formerLines.push(
        `    (${scenario.id}) ${formerOk ? 'within 50%' : 'OVER 50%'}: hottest ${hottest === undefined ? 'none' : `${hottest.part === TABLE ? hottest.shape : `${hottest.part}: ${hottest.shape}`} ${hottest.wcu.toFixed(1)} WCU/s, ${hottest.rcu.toFixed(1)} RCU/s`}; hottest item ${hottestItem === undefined ? 'none' : itemLine(hottestItem)}`,
      );
      print();
      print(`(${scenario.id}) ${scenario.title}`);
      print(`    ${scenario.note}`);
      const measuredUnits = [...(usage.get(scenario.id) ?? new Map<string, Usage>()).values()];
      const per = (field: 'rcu' | 'wcu') =>
        (measuredUnits.reduce((sum, u) => sum + u[field], 0) / Math.max(1, scenario.measured)).toFixed(2);
      print(`    measured per ${scenario.id === 'e' ? 'poll' : 'operation'}: ${per('wcu')} WCU, ${per('rcu')} RCU`);
      const seen = new Map<string, number>();
      for (const row of rows) seen.set(`${row.part} ${row.shape}`, (seen.get(`${row.part} ${row.shape}`) ?? 0) + 1);
      const shown = new Set<string>();
      for (const row of rows) {
        const label = `${row.part} ${row.shape}`;
        if (shown.has(label)) continue;
        shown.add(label);
        const many = (seen.get(label) ?? 1) > 1 ? ` (hottest of ${seen.get(label)})` : '';
        print(
          `    ${(row.part === TABLE ? row.shape : `${row.part}: ${row.shape}`).padEnd(58)} ${row.wcu.toFixed(1).padStart(10)} WCU/s (${pct(row.wcu, LIMITS.wcu).padStart(5)}) ${row.rcu.toFixed(1).padStart(10)} RCU/s (${pct(row.rcu, LIMITS.rcu).padStart(5)})  ${row.load <= HEADROOM ? 'within 50%' : 'OVER 50%'}${many}`,
        );
        if (shown.size === 5) break;
      }
      if (scenario.s3) print(`    ${scenario.s3.note}  ${s3ok ? 'within 50%' : 'OVER 50%'}`);
      const itemsOfShape = new Map<string, number>();
      for (const row of itemRows) itemsOfShape.set(row.shape, (itemsOfShape.get(row.shape) ?? 0) + 1);
      const shownItems = new Set<string>();
      for (const row of itemRows) {
        if (shownItems.has(row.shape)) continue;
        shownItems.add(row.shape);
        const many = (itemsOfShape.get(row.shape) ?? 1) > 1 ? ` (hottest of ${itemsOfShape.get(row.shape)})` : '';
        print(`    item ${itemLine(row)}${many}`);
        if (shownItems.size === 3) break;
      }
      if (hottestItem) print(`    former layout (same transactions re-keyed): hottest item ${itemLine(hottestItem)}`);
      if (hottest) {
        print(
          `    former layout (same measurements re-keyed): hottest ${(hottest.part === TABLE ? hottest.shape : `${hottest.part}: ${hottest.shape}`).padEnd(40)} ${hottest.wcu.toFixed(1).padStart(10)} WCU/s (${pct(hottest.wcu, LIMITS.wcu).padStart(5)}) ${hottest.rcu.toFixed(1).padStart(10)} RCU/s (${pct(hottest.rcu, LIMITS.rcu).padStart(5)})  ${formerPartitionsOk ? 'within 50%' : 'OVER 50%'}`,
        );
      }
      print(`    → ${ok ? 'within 50% of partition and item limits' : 'NOT within 50% of partition and item limits'}`);
    }
    print();
    print(
      'the former layout (one log partition an hour polled by every container, unsharded export and group removals, one counter item a day or month in each shard), from the same run:',
    );
    for (const line of formerLines) print(line);
    print(`    former layout: ${formerWithin} of 5 targets within 50% of partition and item limits`);
    print();
    print('transaction conflicts per item (TransactionConflict in TransactionCanceledException, by item key):');
    const conflictRows = [...conflicts].sort((x, y) => y[1] - x[1]);
    if (conflictRows.length === 0)
      print('    none seen (DynamoDB Local serializes transactions: see the overlaps below)');
    for (const [item, n] of conflictRows.slice(0, 15)) print(`    ${String(n).padStart(5)}  ${item}`);
    if (conflictRows.length > 15) print(`    … ${conflictRows.length - 15} more items`);
    const otherRows = [...cancellations].sort((x, y) => y[1] - x[1]);
    print(
      'transactional writes of an item while another transaction writing it was in flight (each a TransactionConflict on DynamoDB), by item:',
    );
    const overlapRows = [...overlaps].sort((x, y) => y[1] - x[1]);
    if (overlapRows.length === 0) print('    none seen');
    for (const [item, n] of overlapRows.slice(0, 10)) print(`    ${String(n).padStart(5)}  ${item}`);
    if (overlapRows.length > 10) print(`    … ${overlapRows.length - 10} more items`);
    const byShape = new Map<string, { items: number; overlaps: number }>();
    for (const [item, n] of overlapRows) {
      const shape = item
        .split(' / ')
        .map((part) => shapeOf(part, orgs))
        .join(' / ');
      const entry = byShape.get(shape) ?? { items: 0, overlaps: 0 };
      byShape.set(shape, { items: entry.items + 1, overlaps: entry.overlaps + n });
    }
    for (const [shape, { items, overlaps: n }] of [...byShape]
      .sort((x, y) => y[1].overlaps - x[1].overlaps)
      .slice(0, 5)) {
      print(`    by key shape: ${String(n).padStart(5)}  ${shape} (${items} items)`);
    }
    if (otherRows.length > 0) {
      print('other cancellation reasons, by item:');
      for (const [item, n] of otherRows.slice(0, 10)) print(`    ${String(n).padStart(5)}  ${item}`);
    }
    print(`outcomes: ${[...statuses].map(([label, n]) => `${label} ×${n}`).join(', ')}`);
    print(`run: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    print(`capacity: ${within} of 5 targets within 50% of partition and item limits`);
  } finally {
    process.stdout.write = write;
    await dynamo.stop();
  }
  for (const line of out) console.log(line);
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
