/**
 * Webhooks through the local runtime's workers (the event generator over the verdict log, the
 * in-process delivery queue) on DynamoDB Local, to a receiver process on 127.0.0.1 that answers 200 at once:
 * - drain: changes written first (allowlistings of 10 organizations with a webhook each), then
 *   the workers started: events generated and delivered per second;
 * - steady: changes written at a fixed rate with the workers running: change-to-delivery latency
 *   (the change's time in the verdict log to the request's arrival at the receiver).
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../infra/local/dynamo.ts';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { assetRecordsReader, changeLogReader, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { addAssets } from '../../shared/domain/allowlist/assets.ts';
import { mapConcurrently } from '../../shared/domain/core/concurrency.ts';
import { positionAt } from '../../shared/domain/verdict-feed/index.ts';
import { newWebhookId } from '../../shared/domain/webhooks/webhooks.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { percentile } from './child.ts';

type Row = { name: string; value: string };

const ORGANIZATIONS = 10;
const DRAIN_CHANGES_PER_ORGANIZATION = 200;
const STEADY_RATE_PER_SECOND = 100;
const STEADY_SECONDS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The receiver, in a process of its own as a receiver is (not on the workers' event loop): it
 * answers 200 at once on kept-alive connections and reports each delivery's arrival time and the
 * time of the change it carries, one line each.
 */
const RECEIVER = `
const { createServer } = require('node:http');
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    process.stdout.write(Date.now() + ' ' + Date.parse(body.created_at) + '\\n');
    response.writeHead(200).end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

const startReceiver = (arrived: (at: number, changedAt: number) => void) =>
  new Promise<{ port: number; stop: () => Promise<void> }>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const stop = async () => {
      child.stdin.end();
      await exited;
    };
    child.once('error', reject);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [first, second] = line.split(' ') as [string, string];
      if (first === 'port') resolve({ port: Number(second), stop });
      else arrived(Number(first), Number(second));
    });
  });

export const benchWebhooks = async (endpoint: string): Promise<Row[]> => {
  // A shared, loaded machine: the production call budget would time DynamoDB Local out before it measures anything.
  process.env.STORE_CONNECTION_TIMEOUT_MS = '20000';
  process.env.STORE_ATTEMPT_TIMEOUT_MS = '20000';
  process.env.STORE_CALL_BUDGET_MS = '45000';
  const tableName = `bench-webhooks-${randomUUID()}`;
  await ensureTable(endpoint, tableName);
  const db = createDocumentClient(endpoint);
  const store = webhookRepository(db, tableName);
  const assets = assetRepository(db, tableName);
  const groups = assetGroupRepository(db, tableName);
  const sealer = localSealer(join(await mkdtemp(join(tmpdir(), 'bench-webhooks-')), 'key'));

  const arrivals: { at: number; changedAt: number }[] = [];
  const receiver = await startReceiver((at, changedAt) => arrivals.push({ at, changedAt }));
  const port = receiver.port;

  const orgs = Array.from({ length: ORGANIZATIONS }, (_, i) => `bench-${i}`);
  for (const orgId of orgs) {
    await store.create({
      id: newWebhookId(),
      orgId,
      url: `http://127.0.0.1:${port}/${orgId}`,
      description: null,
      events: ['asset.status-updated'],
      headers: undefined,
      enabled: true,
      createdAt: new Date().toISOString(),
      sealedSecret: await sealer.seal('b'.repeat(64)),
    });
  }
  let counter = 0;
  const allowlist = (orgId: string, count: number) =>
    addAssets(
      suffixes,
      assets,
      groups,
      orgId,
      Array.from({ length: count }, () => ({
        content: `https://bench-${counter++}.webhooks.example/`,
        status: 'ALLOWED' as const,
      })),
    );
  /** Waits until `count` deliveries arrived, or none arrived for 30 s (then what is missing is reported). */
  const waitFor = async (count: number) => {
    let seen = arrivals.length;
    let progressed = Date.now();
    while (arrivals.length < count && Date.now() - progressed < 30_000) {
      await sleep(20);
      if (arrivals.length !== seen) {
        seen = arrivals.length;
        progressed = Date.now();
      }
    }
  };

  const loadBefore = loadavg()[0] as number;
  // Drain: the whole backlog is in the log before the workers start (from a position before it).
  await changeLogReader(db, tableName).saveCursor(positionAt(Date.now() - 1000));
  await Promise.all(
    orgs.map(async (orgId) => {
      for (let i = 0; i < DRAIN_CHANGES_PER_ORGANIZATION; i += 50) await allowlist(orgId, 50);
    }),
  );
  const backlog = ORGANIZATIONS * DRAIN_CHANGES_PER_ORGANIZATION;
  // Load-independent costs of the drain: the store calls the workers make and this process's CPU time.
  let calls = 0;
  db.middlewareStack.add(
    (next) => (args) => {
      calls++;
      return next(args);
    },
    { step: 'initialize', name: 'benchCallCounter' },
  );
  const cpuBefore = process.cpuUsage();
  const started = Date.now();
  const workers = startLocalWebhooks({
    db,
    tableName,
    sealer,
    policy: { allowLoopback: true },
    onError: (error) => console.error(`webhooks bench: ${String(error)}`),
  });
  await waitFor(backlog);
  const drainMs = Date.now() - started;
  const drainCpu = process.cpuUsage(cpuBefore);
  const drainCalls = calls;

  // Steady: one allowlisting at a time, spread over the organizations, at a fixed rate.
  const before = arrivals.length;
  const steady = STEADY_RATE_PER_SECOND * STEADY_SECONDS;
  const steadyStart = Date.now();
  const writes: Promise<boolean>[] = [];
  const commits: number[] = [];
  for (let i = 0; i < steady; i++) {
    const due = steadyStart + (i * 1000) / STEADY_RATE_PER_SECOND;
    if (due > Date.now()) await sleep(due - Date.now());
    const called = Date.now();
    writes.push(
      allowlist(orgs[i % ORGANIZATIONS] as string, 1).then(
        () => {
          commits.push(Date.now() - called);
          return true;
        },
        () => false,
      ),
    );
  }
  const written = (await Promise.all(writes)).filter(Boolean).length;
  await waitFor(before + written);
  const missing = before + written - arrivals.length;
  const latencies = arrivals.slice(before).map((arrival) => arrival.at - arrival.changedAt);
  await workers.stop();
  await receiver.stop();
  const loadAfter = loadavg()[0] as number;

  // What bounds it: the generator's one read per change of the records of its content (all other organizations subscribe).
  const readsCpu = process.cpuUsage();
  const readsStart = Date.now();
  const records = assetRecordsReader(db, tableName);
  await mapConcurrently(
    Array.from({ length: backlog }, (_, i) => i),
    32,
    (i) => records.allByAsset(i + 1),
  );
  const readsMs = Date.now() - readsStart;
  const readCpu = process.cpuUsage(readsCpu);

  // The old floor: the four single-item writes an event cost before (delivery + marker, claim, outcome), 10 at a time.
  const floorStart = Date.now();
  await mapConcurrently(
    Array.from({ length: backlog }, (_, i) => i),
    ORGANIZATIONS,
    async (i) => {
      for (let write = 0; write < 4; write++) {
        await db.send(
          new PutCommand({ TableName: tableName, Item: { PK: `FLOOR#${i % ORGANIZATIONS}`, SK: `${i}#${write}` } }),
        );
      }
    },
  );
  const floorMs = Date.now() - floorStart;

  return [
    {
      name: 'host load (1-minute average) before / after the drain and steady runs',
      value: `${loadBefore.toFixed(2)} / ${loadAfter.toFixed(2)} (${cpus().length} CPUs)`,
    },
    {
      name: `drain: ${backlog} changes (${ORGANIZATIONS} organizations, a webhook each) generated and delivered`,
      value: `${((backlog * 1000) / drainMs).toFixed(0)} events/s (${drainMs} ms)`,
    },
    {
      name: "drain: the workers' store calls and CPU time (this process; the receiver runs in its own) per event",
      value: `${(drainCalls / backlog).toFixed(2)} calls, ${((drainCpu.user + drainCpu.system) / 1000 / backlog).toFixed(2)} ms CPU`,
    },
    {
      name: "floor: the generator's read of a content's records, one per change, 32 at a time, nothing else",
      value: `${((backlog * 1000) / readsMs).toFixed(0)} changes/s, ${((readCpu.user + readCpu.system) / 1000 / backlog).toFixed(2)} ms CPU each`,
    },
    {
      name: 'old floor: 4 single-item writes per event on the same DynamoDB Local, 10 at a time',
      value: `${((backlog * 1000) / floorMs).toFixed(0)} events/s`,
    },
    {
      name: `steady ${STEADY_RATE_PER_SECOND} changes/s for ${STEADY_SECONDS} s: change-to-delivery latency`,
      value: `p50 ${percentile(latencies, 0.5)} ms, p99 ${percentile(latencies, 0.99)} ms, max ${Math.max(...latencies)} ms`,
    },
    {
      name: "steady: the allowlisting's own call (its change is stamped during it), for comparison",
      value: `p50 ${percentile(commits, 0.5)} ms, p99 ${percentile(commits, 0.99)} ms`,
    },
    {
      name: 'steady: changes committed / delivered (refused writes are not changes)',
      value: `${written} / ${arrivals.length - before}${missing > 0 ? ` (${missing} NOT DELIVERED)` : ''}`,
    },
  ];
};
