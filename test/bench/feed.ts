/**
 * The verdict feed. `benchFeed` (a section of `npm run bench`) runs this file twice in processes of
 * its own:
 * - `gateway <endpoint>`: how soon a write is visible at `/asset/check` through the local gateway,
 *   beside the former design (one BatchGetItem behind a 10 s per-container cache) on the same
 *   table, and every DynamoDB command the check's process sends over 1,000 checks at steady state
 *   (its handlers reach DynamoDB Local through a counting proxy, so the configuration they read
 *   once per process must be set before they load);
 * - `replica` (with `--expose-gc`): a replica of 1,000,000 entries loaded from a file snapshot, its
 *   heap and load time, and the check's µs per class beside eth-phishing-detect's `checkDomain`.
 * Each prints its rows as JSON on the last line of stdout.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTable } from '../../infra/local/dynamo.ts';
import { loadFixture, parseFixture } from '../../infra/local/fixture.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { dynamoLease } from '../../shared/db/lease-repository.ts';
import { fileSnapshotStore } from '../../shared/db/list-snapshot-store.ts';
import { fileFeedStore } from '../../shared/db/verdict-feed-store.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { fileVerdictSnapshotStore } from '../../shared/db/verdict-snapshot-store.ts';
import { addAssets, removeAsset } from '../../shared/domain/allowlist/assets.ts';
import { createChecker } from '../../shared/domain/check/engine.ts';
import type { EthPhishingConfig } from '../../shared/domain/check/eth-phishing-detect.ts';
import { loadExternalSources } from '../../shared/domain/check/lists.ts';
import type { CheckStatus } from '../../shared/domain/check/types.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import {
  BIT,
  PUBLISHING,
  pack,
  positionAt,
  replicatedIndex,
  runPublisher,
  snapshotVerdicts,
  type VerdictSnapshot,
  verdictPublisher,
} from '../../shared/domain/verdict-feed/index.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { percentile } from './child.ts';

type Row = { name: string; value: string };

const KEY = 'bench-feed-key-0123456789';
const ORG = 'feed';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: readonly number[]) => percentile(values, 0.5);
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const us = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Runs this file in its own process and returns the rows it prints. */
const child = (args: string[], nodeOptions: string[] = []): Row[] => {
  const output = execFileSync(process.execPath, [...nodeOptions, '--import', 'tsx', 'test/bench/feed.ts', ...args], {
    env: process.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '[]') as Row[];
};

export async function benchFeed(endpoint: string): Promise<Row[]> {
  return [...child(['gateway', endpoint]), ...child(['replica'], ['--expose-gc'])];
}

// ── gateway: freshness and reads ────────────────────────────────────────────────────────────────

type Counts = Map<string, number>;

/**
 * An HTTP proxy in front of DynamoDB Local that counts each command by its `X-Amz-Target`, and
 * the Queries that found nothing.
 */
const countingProxy = async (target: string) => {
  const upstream = new URL(target);
  let counts: Counts = new Map();
  let emptyQueries = 0;
  const server = createServer((incoming, outgoing) => {
    const command = String(incoming.headers['x-amz-target'] ?? 'unknown').replace(/^DynamoDB_\d+\./, '');
    counts.set(command, (counts.get(command) ?? 0) + 1);
    const forwarded = httpRequest(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          if (command === 'Query' && (JSON.parse(body.toString('utf8')) as { Count?: number }).Count === 0) {
            emptyQueries++;
          }
          outgoing.writeHead(answer.statusCode ?? 500, answer.headers).end(body);
        });
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The counts since the last call. */
    take: () => {
      const taken = { counts, emptyQueries };
      counts = new Map();
      emptyQueries = 0;
      return taken;
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
};

type Probe = (content: string) => Promise<CheckStatus>;
type Change = { name: string; write: () => Promise<unknown>; expect: CheckStatus };

/** Milliseconds from now until `probe` answers `expected`, probing every `everyMs`. */
const visibleAfter = async (probe: Probe, content: string, expected: CheckStatus, everyMs: number) => {
  const start = performance.now();
  for (;;) {
    if ((await probe(content)) === expected) return performance.now() - start;
    if (performance.now() - start > 60_000) throw new Error(`${content} never became ${expected}`);
    await sleep(everyMs);
  }
};

/**
 * The four writes that change a verdict, one after another on one host: allowlisted, removed, a
 * threat approved, the threat deleted.
 */
const changesOf = (db: ReturnType<typeof createDocumentClient>, table: string, host: string): Change[] => {
  const assets = assetRepository(db, table);
  const groups = assetGroupRepository(db, table);
  const activity = activityRepository(db, table);
  let assetId = 0;
  const threat = (deleted: boolean) =>
    applyActivity(suffixes, activity, {
      organization: ORG,
      kind: 'threat',
      id: `t-${host}`,
      content: host,
      assetType: 'URL',
      status: 'APPROVED',
      watchlisted: false,
      brands: [],
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: deleted ? '2026-01-02T00:00:00Z' : '2026-01-01T00:00:00Z',
      deleted,
    });
  return [
    {
      name: 'allowlist add',
      expect: 'ALLOWED',
      write: async () => {
        const { results } = await addAssets(suffixes, assets, groups, ORG, [
          { content: `https://${host}`, type: 'URL' },
        ]);
        const [added] = results;
        if (!added?.success) throw new Error(`${host} was not added`);
        assetId = added.id;
      },
    },
    { name: 'allowlist remove', expect: 'UNKNOWN', write: () => removeAsset(assets, ORG, assetId) },
    { name: 'threat approve', expect: 'BLOCKED', write: () => threat(false) },
    { name: 'threat delete', expect: 'UNKNOWN', write: () => threat(true) },
  ];
};

type FreshnessOptions = {
  hosts: readonly string[];
  lanes: number;
  phaseMs: number;
  probeEveryMs: number;
  /** When (performance.now()) the feed published a change of `host`, at or after `since`: splits each delay in two. */
  publishedAfter?: (host: string, since: number) => number | undefined;
};

/**
 * Each lane takes its hosts through the four changes. Before each write it waits a random part of
 * `phaseMs` (the refresh cycle of the reader), so writes land anywhere in that cycle; the time is
 * taken from the write's commit (its call returning) to the first probe that answers the new
 * verdict.
 */
const freshness = async (
  db: ReturnType<typeof createDocumentClient>,
  table: string,
  probe: Probe,
  { hosts, lanes, phaseMs, probeEveryMs, publishedAfter }: FreshnessOptions,
) => {
  const delays: number[] = [];
  const toPublished: number[] = [];
  const byChange = new Map<string, number[]>();
  let next = 0;
  const lane = async () => {
    while (next < hosts.length) {
      const host = hosts[next++] as string;
      // Checked before its first change too, as a page in use is: the former design has it cached then.
      await probe(`https://${host}/`);
      for (const change of changesOf(db, table, host)) {
        await sleep(Math.random() * phaseMs);
        await change.write();
        const committed = performance.now();
        const delay = await visibleAfter(probe, `https://${host}/`, change.expect, probeEveryMs);
        delays.push(delay);
        const published = publishedAfter?.(host, committed);
        if (published !== undefined) toPublished.push(published - committed);
        byChange.set(change.name, [...(byChange.get(change.name) ?? []), delay]);
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  const each = [...byChange].map(([name, values]) => `${name} ${ms(median(values))}`).join(', ');
  const split =
    toPublished.length === 0
      ? ''
      : `; of which commit to delta written p50 ${ms(median(toPublished))} ms, p99 ${ms(percentile(toPublished, 0.99))} ms`;
  return `p50 ${ms(median(delays))} ms, p99 ${ms(percentile(delays, 0.99))} ms, max ${ms(Math.max(...delays))} ms over ${delays.length} changes (p50 by write: ${each})${split}`;
};

const countsText = (counts: Counts) =>
  counts.size === 0
    ? 'none'
    : [...counts]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([command, n]) => `${n} ${command}`)
        .join(', ');

/** 1,000 checks at `perSecond`: half of them over 100 popular pages, half on pages never checked before. */
const steadyChecks = async (probe: Probe, perSecond: number) => {
  const started = performance.now();
  for (let i = 0; i < 1_000; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    await probe(i % 2 === 0 ? `https://popular-${i % 200}.example/` : `https://page-${i}.unseen-${i}.example/x`);
  }
  return (performance.now() - started) / 1000;
};

const runGateway = async (endpoint: string): Promise<Row[]> => {
  const table = 'bench-feed';
  await ensureTable(endpoint, table);
  const db = createDocumentClient(endpoint);
  await loadFixture(
    db,
    table,
    parseFixture({
      organizations: [{ slug: ORG, name: 'Feed' }],
      apiKeys: [{ key: KEY, organization: ORG }],
    }),
    () => undefined,
  );
  const verdictsDir = await mkdtemp(join(tmpdir(), 'bench-feed-'));
  await snapshotVerdicts(verdictFeed(db, table), fileVerdictSnapshotStore(verdictsDir), Date.now);
  // The publisher the replicas poll, as `npm start` runs it: its deltas beside the snapshot. When
  // each change's delta was written is noted, by key.
  const feedStore = fileFeedStore(join(verdictsDir, 'feed'));
  const deltaWritten = new Map<string, number[]>();
  const publishing = runPublisher(
    verdictPublisher({
      log: verdictFeed(db, table),
      feed: {
        ...feedStore,
        putDelta: async (delta) => {
          const written = await feedStore.putDelta(delta);
          const at = performance.now();
          for (const change of delta.changes)
            deltaWritten.set(change.key, [...(deltaWritten.get(change.key) ?? []), at]);
          return written;
        },
      },
      lease: dynamoLease(db, table, { name: PUBLISHING.leaseName, owner: 'bench', leaseMs: PUBLISHING.leaseMs }),
      leaseMs: PUBLISHING.leaseMs,
    }),
    { tickMs: PUBLISHING.tickMs, onError: (error) => console.error(`verdict feed not published: ${String(error)}`) },
  );

  const proxy = await countingProxy(endpoint);
  process.env.TABLE_NAME = table;
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  process.env.VERDICTS_DIR = verdictsDir;
  const { createGateway } = await import('../../infra/local/gateway.ts');
  const server = createGateway();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/asset/check`;
  const viaGateway: Probe = async (content) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: JSON.stringify({ content }),
    });
    return ((await response.json()) as { status: CheckStatus }).status;
  };

  const baselineProxy = await countingProxy(endpoint);
  const snapshots = fileSnapshotStore('infra/local/lists');
  const sources = await loadExternalSources(snapshots, () => shipped);
  const baseline = createChecker({
    suffixes,
    timer: systemTimer,
    index: checkIndexRepository(createDocumentClient(baselineProxy.endpoint), table, { ttlMs: 10_000 }),
    sources: () => sources,
  });
  const viaBaseline: Probe = async (content) => (await baseline.check(content)).status;

  const rows: Row[] = [];
  try {
    for (let i = 0; i < 50; i++) await viaGateway(`https://warm-${i}.example/`);
    const hosts = (prefix: string) => Array.from({ length: 60 }, (_, i) => `${prefix}-${i}.fresh.example`);
    rows.push({
      // Few lanes probing often: a delay is counted to the answer of the first probe that sees the change, so it overstates the true one by up to a probe period and a request.
      name: `freshness at /asset/check via the gateway: replica (published feed: a read of the log every ${PUBLISHING.tickMs} ms, the pointer polled when due while checks arrive; 4 lanes, probe every 5 ms)`,
      value: await freshness(db, table, viaGateway, {
        hosts: hosts('replica'),
        lanes: 4,
        phaseMs: 1_000,
        probeEveryMs: 5,
        publishedAfter: (host, since) => deltaWritten.get(host)?.find((at) => at >= since),
      }),
    });
    rows.push({
      name: 'freshness, former design in-process (BatchGetItem behind a 10 s cache; 60 lanes, probe every 50 ms)',
      value: await freshness(db, table, viaBaseline, {
        hosts: hosts('baseline'),
        lanes: 60,
        phaseMs: 10_000,
        probeEveryMs: 50,
      }),
    });

    // Steady state: no write for longer than the settle window, the API key cached, the replica loaded.
    await sleep(4_000);
    for (let i = 0; i < 200; i++) await viaGateway(`https://popular-${i}.example/`);
    for (let i = 0; i < 200; i++) await viaBaseline(`https://popular-${i}.example/`);
    for (const perSecond of [100, 1_000]) {
      proxy.take();
      const seconds = await steadyChecks(viaGateway, perSecond);
      const replica = proxy.take();
      baselineProxy.take();
      await steadyChecks(viaBaseline, perSecond);
      const former = baselineProxy.take();
      rows.push(
        {
          name: `DynamoDB commands per 1,000 checks via the gateway at ${perSecond}/s (${seconds.toFixed(1)} s; half popular, half new pages)`,
          value: `${countsText(replica.counts)} (the replica polls the published feed, not the table; the publisher reads the log through its own client; a Query here is the check-sample feed, run in-process locally, listing its configs once per 25 samples of unknown content)`,
        },
        {
          name: '  former design on the same checks (in-process, its own client)',
          value: countsText(former.counts),
        },
      );
    }
  } finally {
    await publishing.stop();
    server.closeAllConnections();
    server.close();
    proxy.close();
    baselineProxy.close();
  }
  return rows;
};

// ── replica: a million entries ──────────────────────────────────────────────────────────────────

const require = createRequire(import.meta.url);
const checkDomain = require('eth-phishing-detect') as (domain: string) => boolean;
const shipped = require('eth-phishing-detect/src/config.json') as EthPhishingConfig;

const ENTRIES = 1_000_000;
const PER_SET = 2_000;
const ROUNDS = 7;
const GOAL_US = 5;
const GOAL_RATIO = 30;
/** A million entries then take under 120 MB of the check function's 1,024 MB. */
const BOUND_BYTES_PER_ENTRY = 120;

const hex40 = (seed: string) => createHash('sha256').update(seed).digest('hex').slice(0, 40);

/**
 * The i-th entry's content, as a check would be asked about it, and its key. Entries mix the
 * asset types the check serves: 60% domains, 10% pages on path-hosting platforms, 15% EVM
 * addresses, 10% social handles, 5% email addresses. Even entries are blocked, odd ones allowed.
 */
const entry = (i: number): { content: string; key: string } => {
  const kind = i % 20;
  if (kind < 12)
    return { content: `https://login.site-${i}.example-${i % 997}.com/`, key: `site-${i}.example-${i % 997}.com` };
  if (kind < 14) return { content: `https://sites.google.com/view/page-${i}`, key: `sites.google.com/view/page-${i}` };
  if (kind < 17) {
    const address = `0x${hex40(String(i))}`;
    return { content: address, key: address };
  }
  if (kind < 19) return { content: `https://x.com/handle_${i}`, key: `x.com/handle_${i}` };
  return { content: `mailto:user${i}@mail-${i % 4999}.example`, key: `mailto:user${i}@mail-${i % 4999}.example` };
};

/** What eth-phishing-detect is given for a content: its host when it has one, else the text itself. */
const libraryInput = (content: string) => {
  const url = URL.parse(content);
  return url?.hostname ? url.hostname : content;
};

const snapshotOfEntries = (): VerdictSnapshot => {
  const keys: string[] = new Array(ENTRIES);
  const states: number[] = new Array(ENTRIES);
  for (let i = 0; i < ENTRIES; i++) {
    keys[i] = entry(i).key;
    states[i] = pack(1, i % 2 === 0 ? BIT.block : BIT.allow);
  }
  const now = Date.now();
  return {
    format: 1,
    position: positionAt(now),
    version: positionAt(now),
    createdAt: new Date(now).toISOString(),
    scannedAt: new Date(now).toISOString(),
    keys,
    states,
  };
};

const gc = () => (globalThis as { gc?: () => void }).gc?.();

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * CPU µs per call of each runner, median over rounds of the mean, the runners taking turns in
 * every round: CPU time, unlike wall-clock time, does not count the time other processes hold the
 * cores, and taking turns gives each runner the same share of whatever else slows the machine.
 */
const measure = async (items: readonly string[], runners: ((item: string, index: number) => unknown)[]) => {
  const means: number[][] = runners.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, run] of runners.entries()) {
      const start = cpuMicros();
      for (let j = 0; j < items.length; j++) {
        // Awaited only when it is a promise: awaiting a plain value costs a turn of the microtask queue, which is not the check's work.
        const result = run(items[j] as string, j);
        if (result instanceof Promise) await result;
      }
      means[i]?.push((cpuMicros() - start) / items.length);
    }
  }
  return means.map(median);
};

const classes = (): Record<string, string[]> => {
  const pick = (count: number, test: (i: number) => boolean, from = 0) => {
    const found: string[] = [];
    for (let i = from; found.length < count; i += 7) if (test(i)) found.push(entry(i).content);
    return found;
  };
  const isDomain = (i: number) => i % 20 < 12;
  const other = (i: number) => i % 20 >= 12;
  return {
    'blocked domains': pick(PER_SET, (i) => i % 2 === 0 && isDomain(i)),
    'blocked pages, addresses, handles, emails': pick(PER_SET, (i) => i % 2 === 0 && other(i)),
    'allowed domains': pick(PER_SET, (i) => i % 2 === 1 && isDomain(i)),
    'allowed pages, addresses, handles, emails': pick(PER_SET, (i) => i % 2 === 1 && other(i)),
    'unknown domains': Array.from({ length: PER_SET }, (_, i) => `https://shop.unlisted-${i}.org/articles/${i}`),
    'unknown pages, addresses, handles, emails': Array.from(
      { length: PER_SET },
      (_, i) =>
        [`https://sites.google.com/view/unlisted-${i}`, `0x${hex40(`unlisted-${i}`)}`, `https://x.com/unlisted_${i}`][
          i % 3
        ] as string,
    ),
  };
};

const runReplica = async (): Promise<Row[]> => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-feed-replica-'));
  const store = fileVerdictSnapshotStore(dir);
  await store.save(snapshotOfEntries());
  const sources = await loadExternalSources(fileSnapshotStore('infra/local/lists'), () => shipped);

  let readMs = 0;
  const timedStore = {
    ...store,
    latest: async () => {
      const started = performance.now();
      const snapshot = await store.latest();
      readMs = performance.now() - started;
      return snapshot;
    },
  };
  const replica = replicatedIndex({
    log: {
      readFrom: async () => [],
      indexShards: 1,
      readIndexPage: () => Promise.reject(new Error('no index read')),
    },
    snapshots: timedStore,
  });
  // The key filter's words live outside the JS heap, in an ArrayBuffer.
  const used = async () => {
    // Array buffers are freed by a sweep after the collection that finds them unreachable.
    for (let i = 0; i < 3; i++) {
      gc();
      await sleep(50);
    }
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return { heapUsed, arrayBuffers, total: heapUsed + arrayBuffers };
  };
  const before = await used();
  const started = performance.now();
  const startedCpu = cpuMicros();
  await replica.sync();
  const loadMs = performance.now() - started;
  const loadCpuMs = (cpuMicros() - startedCpu) / 1000;
  const after = await used();
  const heap = after.total - before.total;
  const { entries } = await replica.status();

  const checker = createChecker({ suffixes, timer: systemTimer, index: replica, sources: () => sources });
  const sets = classes();
  const all = Object.values(sets).flat();
  const allInputs = all.map(libraryInput);
  for (let pass = 0; pass < 5; pass++) {
    for (const content of all) await checker.check(content);
    for (const input of allInputs) checkDomain(input);
  }
  const perEntry = heap / entries;
  let characters = 0;
  for (let i = 0; i < ENTRIES; i++) characters += entry(i).key.length;
  const rows: Row[] = [
    {
      name: `replica of ${entries.toLocaleString('en')} entries (keys of ${(characters / ENTRIES).toFixed(0)} characters on average): memory after load minus before (JS heap + array buffers, after GC)`,
      value: `${mb(heap)} (heap ${mb(after.heapUsed - before.heapUsed)}, array buffers ${mb(after.arrayBuffers - before.arrayBuffers)}): ${perEntry.toFixed(0)} bytes per entry; bound ${BOUND_BYTES_PER_ENTRY} bytes per entry (${mb(BOUND_BYTES_PER_ENTRY * 1e6)} per million): ${perEntry <= BOUND_BYTES_PER_ENTRY ? 'within' : 'OVER'}`,
    },
    {
      name: `snapshot load, ${entries.toLocaleString('en')} entries (file: read + gunzip + parse, then build)`,
      value: `${ms(loadMs)} ms (read + gunzip + parse ${ms(readMs)} ms, build ${ms(loadMs - readMs)} ms); ${ms(loadCpuMs)} ms of CPU`,
    },
  ];
  for (const [name, contents] of Object.entries(sets)) {
    const statuses = new Map<CheckStatus, number>();
    for (const content of contents) {
      const { status } = await checker.check(content);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const inputs = contents.map(libraryInput);
    const [ours = 0, library = 0] = await measure(contents, [
      (content) => checker.check(content),
      (_, i) => checkDomain(inputs[i] as string),
    ]);
    const ratio = library / ours;
    const verdicts = [...statuses].map(([status, count]) => `${count} ${status}`).join(', ');
    rows.push({
      name: `check on the 1M replica, ${name} (${verdicts})`,
      value: `${us(ours)} µs vs checkDomain ${us(library)} µs: ${ratio.toFixed(0)}× (goal ≤ ${GOAL_US} µs and ≥ ${GOAL_RATIO}×: ${ours <= GOAL_US && ratio >= GOAL_RATIO ? 'met' : 'MISSED'})`,
    });
  }
  return rows;
};

const MODES: Record<string, (argument: string) => Promise<Row[]>> = { gateway: runGateway, replica: runReplica };

if (process.argv[1]?.endsWith('feed.ts')) {
  const mode = MODES[process.argv[2] ?? ''];
  if (!mode) throw new Error('Usage: tsx test/bench/feed.ts gateway <endpoint> | replica');
  process.env.LOG_LEVEL ??= 'SILENT';
  mode(process.argv[3] ?? '')
    .then((rows) => {
      console.log(JSON.stringify(rows));
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
