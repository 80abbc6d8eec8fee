import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import { changeWriter, verdicts } from '../../shared/db/change-set.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { createChecker } from '../../shared/domain/check/engine.ts';
import type { CheckResult } from '../../shared/domain/check/types.ts';
import { replicatedIndex } from '../../shared/domain/verdict-feed/index.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('verdict-outage');

type Mode = 'up' | 'stalled' | 'stopped';
let mode: Mode = 'up';
const held: Socket[] = [];
const open = new Set<Socket>();
/** Connections kept alive from before an outage break with it. */
const setMode = (next: Mode) => {
  mode = next;
  if (next === 'up') return;
  for (const socket of open) socket.destroy();
  open.clear();
};
/**
 * The replica reaches the table through this proxy: `stalled` accepts connections and never
 * answers (a table that hangs), `stopped` refuses them (a table that is gone).
 */
const proxy = createServer((client) => {
  if (mode === 'stopped') return client.destroy();
  if (mode === 'stalled') {
    held.push(client);
    return;
  }
  const { hostname, port } = new URL(table.endpoint);
  const upstream = connect(Number(port), hostname);
  open.add(client).add(upstream);
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const address = proxy.address() as { port: number };
const proxied = createDocumentClient(`http://127.0.0.1:${address.port}`);

const STALE_AFTER_MS = 1_500;
const replica = replicatedIndex({
  log: verdictFeed(proxied, table.tableName),
  pollMs: 100,
  // A read of the log is a query of each of its 33 partitions of the day, at once.
  pollTimeoutMs: 2_000,
  staleAfterMs: STALE_AFTER_MS,
});
const checker = createChecker({ suffixes, timer: systemTimer, index: replica, sources: () => [] });

const write = (checkKey: string, change: { allow?: number; block?: number }) =>
  changeWriter(table.db, table.tableName).commit(() => [verdicts([{ checkKey, type: 'URL', ...change }])]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const summary = ({ status, code, reason }: CheckResult) => ({ status, code, reason });

/** Checks the three contents every 50 ms for `ms`; returns every distinct answer per content. */
const checkThrough = async (ms: number) => {
  const seen = { blocked: new Set<string>(), allowed: new Set<string>(), unknown: new Set<string>() };
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const [blocked, allowed, unknown] = await Promise.all([
      checker.check('https://outage-threat.example/claim'),
      checker.check('https://app.outage-brand.example'),
      checker.check('https://never-listed.example'),
    ]);
    seen.blocked.add(JSON.stringify(summary(blocked as CheckResult)));
    seen.allowed.add(JSON.stringify(summary(allowed as CheckResult)));
    seen.unknown.add(JSON.stringify(summary(unknown as CheckResult)));
    await sleep(50);
  }
  return Object.fromEntries(
    Object.entries(seen).map(([name, answers]) => [name, [...answers].map((a) => JSON.parse(a))]),
  );
};

beforeAll(async () => {
  await write('outage-threat.example', { block: 1 });
  await write('outage-brand.example', { allow: 1 });
  await replica.sync();
});

afterAll(() => {
  for (const socket of held) socket.destroy();
  proxy.close();
});

describe.each(['stalled', 'stopped'] as const)('a replica whose table is %s', (outage) => {
  it('keeps answering its known verdicts, flags them once stale, and answers unknown content UNKNOWN at once', async () => {
    setMode(outage);

    const answers = await checkThrough(STALE_AFTER_MS + 1_000);

    expect(answers).toEqual({
      blocked: [
        { status: 'BLOCKED', code: undefined, reason: undefined },
        { status: 'BLOCKED', code: 'internal-error', reason: undefined },
      ],
      allowed: [
        { status: 'ALLOWED', code: undefined, reason: 'parent-domain' },
        { status: 'ALLOWED', code: 'internal-error', reason: 'parent-domain' },
      ],
      unknown: [
        { status: 'UNKNOWN', code: undefined, reason: 'not-found' },
        { status: 'UNKNOWN', code: 'internal-error', reason: 'not-found' },
      ],
    });
  });

  it('catches up, unflagged, once the table is back', async () => {
    await write('outage-threat.example', { block: -1 });
    setMode('up');
    await sleep(200);

    await replica.sync();

    expect(summary(await checker.check('https://outage-threat.example/claim'))).toEqual({
      status: 'UNKNOWN',
      code: undefined,
      reason: 'not-found',
    });
    await write('outage-threat.example', { block: 1 });
    await replica.sync();
  });
});
