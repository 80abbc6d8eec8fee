/**
 * The hash-prefix blocklist (`npm run bench -- blocklist`):
 * - the snapshot artifact of 1,000,000 BLOCKED entries: bytes per prefix (Rice coded, beside what
 *   a varint of the same gaps would take) and its build time from a verdict snapshot;
 * - the recent feed of 10,000 changes on top of it, kept change by change, and its encoding;
 * - the lists artifact of the external lists the check consults (the list eth-phishing-detect ships and
 *   the local sample lists): its size and build time;
 * - the reference client holding those prefixes and the lists': µs per lookup for a miss (decided locally) and a
 *   local hit whose full hash is already confirmed, and how many of 10,000 random unknown URLs need
 *   a confirm request (the false positives of 32-bit prefixes);
 * - freshness through the local gateway on DynamoDB Local: from a threat's approval (or its
 *   rejection) being written to a client, syncing back to back, seeing it.
 */
import type { AddressInfo } from 'node:net';
import { BlocklistClient } from '../../shared/blocklist-client/client.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { fileSnapshotStore, readShippedEthList } from '../../shared/db/list-snapshot-store.ts';
import { encodeArtifact, tokenOf } from '../../shared/domain/blocklist/artifact.ts';
import { snapshotPrefixes } from '../../shared/domain/blocklist/blocklist.ts';
import { ALGO_VERSION } from '../../shared/domain/blocklist/expressions.ts';
import { listIndexOf } from '../../shared/domain/blocklist/list-index.ts';
import { manifestIssuer, sha256Hex } from '../../shared/domain/blocklist/manifest.ts';
import { PrefixState } from '../../shared/domain/blocklist/prefix-state.ts';
import { newSigningKey, publishedKeys, SIGNING_KEYS } from '../../shared/domain/blocklist/signing-keys.ts';
import { loadExternalLists } from '../../shared/domain/check/index.ts';
import { BIT, pack, positionAt } from '../../shared/domain/verdict-feed/index.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { percentile } from './child.ts';

type Row = { name: string; value: string };

const ENTRIES = 1_000_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CHANGES = 10_000;
const KEY = 'bench-blocklist-key-0123456789';

const timedAsync = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};
const timed = <T>(work: () => T): [T, number] => {
  const started = performance.now();
  const result = work();
  return [result, performance.now() - started];
};
const varintBytes = (sorted: Uint32Array) => {
  let bytes = sorted.length > 0 ? 4 : 0;
  for (let i = 1; i < sorted.length; i++) {
    const gap = (sorted[i] as number) - (sorted[i - 1] as number);
    bytes += gap < 2 ** 7 ? 1 : gap < 2 ** 14 ? 2 : gap < 2 ** 21 ? 3 : gap < 2 ** 28 ? 4 : 5;
  }
  return bytes;
};

/** Entry keys as the check index holds them: hosts, and one in five a page. */
const entryKey = (i: number) => (i % 5 === 0 ? `bench-${i}.example/claim` : `bench-${i}.example`);

const offline = async (): Promise<Row[]> => {
  const keys = Array.from({ length: ENTRIES }, (_, i) => entryKey(i));
  const states = keys.map(() => pack(1, BIT.block));
  const [prefixes, hashMs] = timed(() => snapshotPrefixes({ keys, states }));
  const [snapshot, encodeMs] = timed(() => encodeArtifact({ kind: 'snapshot', algoVersion: ALGO_VERSION, prefixes }));

  const state = new PrefixState();
  const [, loadMs] = timed(() => {
    for (const key of keys) state.set(key, true);
  });
  state.rebase(prefixes);
  const [, applyMs] = timed(() => {
    for (let i = 0; i < CHANGES; i++) {
      if (i % 2 === 0) state.set(`bench-new-${i}.example`, true);
      else state.set(entryKey(i * 97), false);
    }
  });
  const [recent, recentMs] = timed(() => {
    const { added, removed } = state.recent();
    return encodeArtifact({ kind: 'recent', algoVersion: ALGO_VERSION, added, removed });
  });

  // The external lists the check consults locally: the list eth-phishing-detect ships and the sample lists.
  const [listed, listsMs] = await timedAsync(async () =>
    listIndexOf(await loadExternalLists(fileSnapshotStore('infra/local/lists'), readShippedEthList)),
  );
  const lists = listed.artifact;

  // A client holding the snapshot, the recent feed and the lists, its confirmations answered from memory.
  const served = new Map([
    [tokenOf(snapshot), snapshot],
    [tokenOf(recent), recent],
    [lists.token, Buffer.from(lists.content)],
  ]);
  // Signed as the service signs it: the client trusts nothing else.
  const keySet = { keys: [await newSigningKey(Date.now() - 2 * SIGNING_KEYS.leadMs)] };
  const entryOf = (bytes: Uint8Array) => ({ token: tokenOf(bytes), sha256: sha256Hex(bytes), bytes: bytes.length });
  const manifest = await manifestIssuer({ keys: async () => keySet })({
    algoVersion: ALGO_VERSION,
    version: positionAt(0),
    artifacts: [entryOf(snapshot), entryOf(recent), entryOf(lists.content)],
  });
  let confirms = 0;
  const fakeFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    if (url.endsWith('/asset/blocklist/version')) {
      const ref = (bytes: Uint8Array, count: number) => ({
        token: tokenOf(bytes),
        count,
        url: `artifact:${tokenOf(bytes)}`,
        bytes: bytes.length,
      });
      return Response.json({
        algoVersion: ALGO_VERSION,
        version: positionAt(0),
        snapshot: ref(snapshot, prefixes.length),
        recent: ref(recent, 0),
        lists: ref(lists.content, lists.count),
        manifest,
      });
    }
    if (url.endsWith('/asset/blocklist/keys')) return Response.json(publishedKeys(keySet, Date.now()));
    if (url.startsWith('artifact:')) return new Response(served.get(url.slice(9)));
    confirms++;
    const body = JSON.parse(String(init?.body)) as { prefixes: string[] };
    const values = body.prefixes.map((prefix) => Number.parseInt(prefix, 16));
    return Response.json({
      algoVersion: ALGO_VERSION,
      matches: Object.fromEntries(body.prefixes.map((prefix, i) => [prefix, [...state.hashesOf(values[i] as number)]])),
      verdicts: Object.fromEntries(
        values.flatMap((prefix) => [
          ...state.hashesOf(prefix).map((hash) => [hash, { service: 'BLOCKED' }]),
          ...listed.under(prefix),
        ]),
      ),
    });
  }) as typeof fetch;
  const client = new BlocklistClient({ suffixes, baseUrl: 'mem://api/v2', apiKey: KEY, fetch: fakeFetch });
  const synced = await client.sync();
  if (synced.refused !== undefined) throw new Error(`The bench client refused its sync: ${synced.refused}`);

  const unknown = Array.from({ length: CHANGES }, (_, i) => `https://www.unknown-${i}.example.org/path/${i}?q=${i}`);
  const before = confirms;
  let sent = 0;
  for (const url of unknown) if ((await client.lookup(url)).sent > 0) sent++;
  const falsePositiveRequests = confirms - before;
  const measure = async (urls: readonly string[]) => {
    for (const url of urls.slice(0, 2_000)) await client.lookup(url);
    const started = performance.now();
    for (const url of urls) await client.lookup(url);
    return ((performance.now() - started) * 1000) / urls.length;
  };
  const missUs = await measure(unknown);
  const hits = Array.from({ length: CHANGES }, (_, i) => `https://login.bench-${((i * 7) % 1000) * 5 + 1}.example/x`);
  const hitUs = await measure(hits);
  const blocked = (await client.lookup(hits[0] as string)).blocked;

  return [
    {
      name: `snapshot artifact of ${ENTRIES.toLocaleString('en')} BLOCKED entries (${prefixes.length.toLocaleString('en')} prefixes)`,
      value: `${snapshot.length.toLocaleString('en')} bytes = ${(snapshot.length / prefixes.length).toFixed(2)} bytes/prefix Rice-coded (varint of the same gaps: ${(varintBytes(prefixes) / prefixes.length).toFixed(2)} bytes/prefix); goal ≤ 4.5`,
    },
    {
      name: 'snapshot build from a verdict snapshot (hash every BLOCKED expression, sort, Rice-code, gzip)',
      value: `${(hashMs + encodeMs).toFixed(0)} ms (hashing ${hashMs.toFixed(0)} ms, coding ${encodeMs.toFixed(0)} ms)`,
    },
    {
      name: `recent feed of ${CHANGES.toLocaleString('en')} changes (half additions, half removals) on that snapshot`,
      value: `applied change by change in ${applyMs.toFixed(0)} ms, coded in ${recentMs.toFixed(1)} ms: ${recent.length.toLocaleString('en')} bytes (prefix state loaded in ${loadMs.toFixed(0)} ms)`,
    },
    {
      name: `lists artifact of the shipped eth-phishing-detect list and the local sample lists (${lists.count.toLocaleString('en')} prefixes)`,
      value: `${lists.bytes.toLocaleString('en')} bytes = ${(lists.bytes / Math.max(1, lists.count)).toFixed(2)} bytes/prefix, built in ${listsMs.toFixed(0)} ms (load, hash every entry, Rice-code, gzip)`,
    },
    {
      name: `client lookup, ${client.size.toLocaleString('en')} prefixes held (${lists.count.toLocaleString('en')} of them the lists')`,
      value: `miss ${missUs.toFixed(2)} µs, local hit (full hash confirmed, cached) ${hitUs.toFixed(2)} µs; the hit blocks: ${blocked}`,
    },
    {
      name: `confirm requests per ${CHANGES.toLocaleString('en')} random unknown URLs`,
      value: `${falsePositiveRequests} (${sent} lookups matched a prefix locally, none blocked)`,
    },
  ];
};

const freshness = async (endpoint: string): Promise<Row[]> => {
  const { ensureTable } = await import('../../infra/local/dynamo.ts');
  const tableName = process.env.TABLE_NAME ?? 'bench-gateway';
  await ensureTable(endpoint, tableName);
  const { seed } = await import('../fixtures/seed.ts');
  const { activityRepository } = await import('../../shared/db/activity-repository.ts');
  const { applyActivity } = await import('../../shared/domain/lifecycle/activity.ts');
  const db = createDocumentClient(endpoint);
  await seed(db, tableName, {
    organizations: [{ slug: 'bench-blocklist', name: 'Bench blocklist' }],
    apiKeys: [{ key: KEY, organization: 'bench-blocklist' }],
  });
  const activity = activityRepository(db, tableName);
  const threat = (id: string, content: string, status: string) =>
    applyActivity(suffixes, activity, {
      organization: 'bench-blocklist',
      kind: 'threat',
      id,
      content,
      assetType: 'URL',
      status,
      watchlisted: false,
      brands: [],
      createdAt: '2026-11-01T10:00:00Z',
      updatedAt: new Date().toISOString(),
    } as never);

  const { createGateway } = await import('../../infra/local/gateway.ts');
  const server = createGateway();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new BlocklistClient({
    suffixes,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`,
    apiKey: KEY,
    confirmTtlMs: 0,
  });
  const run = Date.now().toString(36);
  const added: number[] = [];
  const removed: number[] = [];
  let syncs = 0;
  try {
    await client.sync();
    /** Syncs every 100 ms until `seen` holds; the ms from `written` to the end of the sync that saw it. */
    const until = async (seen: () => Promise<boolean>, written: number) => {
      for (;;) {
        await sleep(100);
        await client.sync();
        syncs++;
        if (await seen()) return performance.now() - written;
      }
    };
    for (let i = 0; i < 30; i++) {
      const content = `fresh-${run}-${i}.example`;
      // At a random moment of the service's poll cycle, as a real write would come.
      await sleep(Math.random() * 1000);
      await threat(`fresh-${run}-${i}`, content, 'BLOCKED');
      added.push(await until(async () => (await client.lookup(content)).blocked, performance.now()));
      await sleep(Math.random() * 1000);
      await threat(`fresh-${run}-${i}`, content, 'REJECTED');
      removed.push(await until(async () => !(await client.lookup(content)).blocked, performance.now()));
    }
  } finally {
    server.close();
    server.closeAllConnections();
  }
  const figure = (values: number[]) =>
    `p50 ${percentile(values, 0.5).toFixed(0)} ms, p99 ${percentile(values, 0.99).toFixed(0)} ms`;
  return [
    {
      name: 'write → a client syncing every 100 ms blocks it (approval, 30 writes; the service polls the log each second)',
      value: figure(added),
    },
    {
      name: 'write → a syncing client no longer blocks it (rejection, 30 writes)',
      value: `${figure(removed)}; ${syncs} syncs in all`,
    },
  ];
};

export const benchBlocklist = async (endpoint: string): Promise<Row[]> => [
  ...(await offline()),
  ...(await freshness(endpoint)),
];
