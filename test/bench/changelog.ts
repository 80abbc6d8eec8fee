/**
 * `POST /asset/changelog`: what one call reads, and what one key's burst of calls does to another
 * key. `benchChangelog` runs this file in a process of its own, so that its handlers read this
 * table under the production failure policy; it prints its rows as JSON on the last line of stdout.
 * - queries and items read per call, following the changelog to its end over 100 changes after a
 *   quiet week (from the oldest kept change) and over 10,000 changes of one hour (per_page 1,000 and
 *   10,000), through a client that counts every Query and the items it read;
 * - through the local gateway, another key's `POST /asset/list` p50 before and while one key keeps 16
 *   changelog calls in flight (goal: at most 2× before).
 */
import type { AddressInfo } from 'node:net';
import { percentile, type Row, rowsOfChild, runAsChild } from './child.ts';

const TABLE = 'bench-changelog';
const BURST_KEY = 'bench-changelog-burst-0123456789';
const NEIGHBOUR_KEY = 'bench-changelog-neighbour-0123456789';
const BURST = 16;
const NEIGHBOUR_CALLS = 200;
/** Turns of before and during. */
const ROUNDS = 4;
const GOAL_RATIO = 2;

export const benchChangelog = async (endpoint: string): Promise<Row[]> =>
  rowsOfChild('test/bench/changelog.ts', endpoint, { TABLE_NAME: TABLE, DYNAMODB_ENDPOINT: endpoint });

const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0));

const run = async (endpoint: string): Promise<Row[]> => {
  const { ensureTable } = await import('../../infra/local/dynamo.ts');
  const { loadFixture, parseFixture } = await import('../../infra/local/fixture.ts');
  const { createGateway } = await import('../../infra/local/gateway.ts');
  const { changeWriter, verdicts } = await import('../../shared/db/change-set.ts');
  const { createDocumentClient } = await import('../../shared/db/client.ts');
  const { verdictFeed } = await import('../../shared/db/verdict-log.ts');
  const { readChangelog } = await import('../../shared/domain/verdict-feed/index.ts');
  const { LOG_TIMING, positionAt } = await import('../../shared/domain/verdict-feed/index.ts');
  const { mapConcurrently } = await import('../../shared/domain/core/concurrency.ts');

  await ensureTable(endpoint, TABLE);
  const db = createDocumentClient(endpoint);
  await loadFixture(
    db,
    TABLE,
    parseFixture({
      organizations: [
        { slug: 'burst', name: 'Burst' },
        { slug: 'neighbour', name: 'Neighbour' },
      ],
      apiKeys: [
        { key: BURST_KEY, organization: 'burst' },
        { key: NEIGHBOUR_KEY, organization: 'neighbour' },
      ],
    }),
    () => undefined,
  );

  /** Blocks `count` new contents, stamped from `at` on, 50 to a transaction. */
  const block = async (prefix: string, count: number, at: number) => {
    const batches = Array.from({ length: Math.ceil(count / 50) }, (_, i) =>
      Array.from({ length: Math.min(50, count - i * 50) }, (_, j) => `${prefix}-${i * 50 + j}.example`),
    );
    await mapConcurrently(batches, 1, (contents, i) =>
      changeWriter(db, TABLE).commit(() => [
        verdicts(
          contents.map((checkKey) => ({ checkKey, type: 'URL' as const, block: 1 })),
          { now: () => at + i },
        ),
      ]),
    );
  };

  /** A client of the table that counts each Query and the items it read (before any filter). */
  const counting = () => {
    const client = createDocumentClient(endpoint);
    const counts = { queries: 0, items: 0 };
    client.middlewareStack.add(
      (next) => async (args) => {
        const output = await next(args);
        if ((args.input as { KeyConditionExpression?: string }).KeyConditionExpression !== undefined) {
          counts.queries++;
          counts.items += (output.output as { ScannedCount?: number }).ScannedCount ?? 0;
        }
        return output;
      },
      { step: 'initialize', name: 'countQueries' },
    );
    return { client, counts };
  };

  /** Follows the changelog from `since` (absent: the oldest kept change) to its end with a fresh container's feed. */
  const follow = async (since: string | undefined, perPage: number) => {
    const { client, counts } = counting();
    const feed = verdictFeed(client, TABLE);
    const now = Date.now() + LOG_TIMING.settleMs + 1;
    const calls: { queries: number; items: number }[] = [];
    let changes = 0;
    let nextPage: string | undefined;
    do {
      const before = { ...counts };
      const page = await readChangelog(
        feed,
        { ...(since === undefined ? {} : { since }), perPage, ...(nextPage === undefined ? {} : { nextPage }) },
        now,
      );
      calls.push({ queries: counts.queries - before.queries, items: counts.items - before.items });
      changes += page.changes.length;
      nextPage = page.next_page ?? undefined;
    } while (nextPage !== undefined);
    const most = (field: 'queries' | 'items') => Math.max(...calls.map((call) => call[field]));
    return `${changes} changes in ${calls.length} calls; per call at most ${most('queries')} queries, ${most('items')} items read`;
  };

  const rows: Row[] = [];
  const started = Date.now();
  await block('small', 100, started - 60_000);
  rows.push({
    name: 'changelog reads per call: 100 changes after a quiet week, from the oldest kept change, per_page 1,000',
    value: await follow(undefined, 1_000),
  });
  const busyFrom = started - 3_600_000;
  await block('large', 10_000, busyFrom);
  for (const perPage of [1_000, 10_000]) {
    rows.push({
      name: `changelog reads per call: 10,000 changes written an hour ago, per_page ${perPage.toLocaleString('en')}`,
      value: await follow(positionAt(busyFrom - 1), perPage),
    });
  }

  // The neighbour figure through the local gateway: one process, one table client for every route.
  const server = createGateway();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  const post = async (path: string, key: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'X-API-KEY': key },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    return response.status;
  };
  const listBody = { type: 'URL', status: 'BLOCKED', per_page: 100 };
  const sample = async (times: number[], statuses: Map<number, number>) => {
    for (let i = 0; i < NEIGHBOUR_CALLS / ROUNDS; i++) {
      const at = performance.now();
      const status = await post('/asset/list', NEIGHBOUR_KEY, listBody);
      times.push(performance.now() - at);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const statusText = (statuses: Map<number, number>) =>
    [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${n}× ${status}`)
      .join(', ');
  try {
    for (let i = 0; i < 20; i++) await post('/asset/list', NEIGHBOUR_KEY, listBody);
    await post('/asset/changelog', BURST_KEY, { per_page: 1_000 });
    const quiet = { times: [] as number[], statuses: new Map<number, number>() };
    const busy = { times: [] as number[], statuses: new Map<number, number>() };
    const burstStatuses = new Map<number, number>();
    const burstTimes: number[] = [];
    // Before and during in turns, so that a shared machine's other work weighs on both alike.
    for (let round = 0; round < ROUNDS; round++) {
      await sample(quiet.times, quiet.statuses);
      let stop = false;
      const lanes = Array.from({ length: BURST }, async () => {
        while (!stop) {
          const at = performance.now();
          // From the oldest kept change, as a client syncing for the first time.
          const status = await post('/asset/changelog', BURST_KEY, { per_page: 1_000 });
          burstTimes.push(performance.now() - at);
          burstStatuses.set(status, (burstStatuses.get(status) ?? 0) + 1);
          // A refused call comes back when told to.
          if (status === 429) await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      });
      await sample(busy.times, busy.statuses);
      stop = true;
      await Promise.all(lanes);
    }
    const before = { p50: percentile(quiet.times, 0.5), p99: percentile(quiet.times, 0.99) };
    const during = { p50: percentile(busy.times, 0.5), p99: percentile(busy.times, 0.99), statuses: busy.statuses };

    const ratio = during.p50 / before.p50;
    rows.push(
      {
        name: `another key's POST /asset/list via the gateway: p50 before → while one key keeps ${BURST} changelog calls in flight`,
        value: `${ms(before.p50)} → ${ms(during.p50)} ms (×${ratio.toFixed(2)}, goal ≤ ${GOAL_RATIO}×${ratio <= GOAL_RATIO ? '' : ', OVER'}); p99 ${ms(before.p99)} → ${ms(during.p99)} ms; ${statusText(during.statuses)}`,
      },
      {
        name: `  the one key's ${BURST} lanes of changelog calls meanwhile`,
        value: `${statusText(burstStatuses)}; p50 ${ms(percentile(burstTimes, 0.5))} ms, p99 ${ms(percentile(burstTimes, 0.99))} ms`,
      },
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
  return rows;
};

runAsChild('changelog.ts', run);
