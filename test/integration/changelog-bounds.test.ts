import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { changeWriter, verdicts } from '../../shared/db/change-set.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { CHANGELOG_QUERIES, CHANGELOG_READERS, verdictFeed } from '../../shared/db/verdict-log.ts';
import { cachedKeyResolver } from '../../shared/domain/account/api-keys.ts';
import { CHANGELOG_READS, LOG_TIMING, positionAt } from '../../shared/domain/verdict-feed/index.ts';
import * as runtime from '../../shared/runtime.ts';
import { apiEvent, call } from '../fixtures/api-event.ts';
import { ACME_KEY, GLOBEX_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

// The production failure policy (shared/db/client.ts, deadline.ts) for every client and request of
// this file: a request's calls get 2 s in all, an attempt 2.5 s, a wait for a connection 1 s.
Object.assign(process.env, {
  STORE_CONNECTION_TIMEOUT_MS: '1000',
  STORE_ATTEMPT_TIMEOUT_MS: '2500',
  STORE_CALL_BUDGET_MS: '4000',
  STORE_REQUEST_BUDGET_MS: '2000',
});
const table = await createTestTable('changelog-bounds');
// After the table: a function module builds its production dependencies when it loads.
const changelogModule = await import('../../functions/check/changelog.ts');
const listModule = await import('../../functions/lookups/list.ts');

const DAY = 86_400_000;
const base = Date.now();
/** The test's clock runs one settle window ahead, so every change written is handed out. */
const later = () => Date.now() + LOG_TIMING.settleMs + 1;

/** The feed's table client, counting every command it sends. */
const counted = createDocumentClient(table.endpoint);
let commands = 0;
counted.middlewareStack.add(
  (next) => async (args) => {
    commands++;
    return next(args);
  },
  { step: 'initialize', name: 'countCommands' },
);
const changelog = changelogModule.createHandler({
  keys: cachedKeyResolver(apiKeyRepository(table.db, table.tableName)),
  feed: verdictFeed(counted, table.tableName),
  now: later,
  timer: systemTimer,
});

type Change = { content: string; status: string; version: string };
type Page = { changes: Change[]; next_page: string | null; version: string };

/** An event as API Gateway sends it now: the request's deadline runs from its arrival. */
const arriving = (event: APIGatewayProxyEventV2): APIGatewayProxyEventV2 => ({
  ...event,
  requestContext: { ...event.requestContext, timeEpoch: Date.now() },
});
const changelogEvent = (body: Record<string, unknown>, apiKey = ACME_KEY) =>
  arriving(apiEvent({ method: 'POST', path: '/v2/asset/changelog', apiKey, body }));

/** One changelog call, with the number of table commands it sent. */
const readPage = async (body: Record<string, unknown>) => {
  const before = commands;
  const response = await call(changelog, changelogEvent(body));
  expect(response.statusCode).toBe(200);
  return { page: response.body as Page, commands: commands - before };
};

/** Every page from `since` to the end: the changes in the order handed out and the commands of each call. */
const follow = async (since: string | undefined, perPage: number) => {
  const changes: Change[] = [];
  const perCall: number[] = [];
  const pages: Page[] = [];
  let body: Record<string, unknown> = { ...(since === undefined ? {} : { since }), per_page: perPage };
  for (;;) {
    const { page, commands: sent } = await readPage(body);
    changes.push(...page.changes);
    perCall.push(sent);
    pages.push(page);
    if (page.next_page === null) return { changes, perCall, pages };
    body = { ...body, next_page: page.next_page };
  }
};

/** Blocks `count` new contents at `at` (epoch ms), 50 to a transaction; the versions of their changes. */
const block = async (prefix: string, count: number, at: number) => {
  const contents = Array.from({ length: count }, (_, i) => `${prefix}-${i}.example`);
  for (let i = 0; i < contents.length; i += 50) {
    const deltas = contents.slice(i, i + 50).map((checkKey) => ({ checkKey, type: 'URL' as const, block: 1 }));
    await changeWriter(table.db, table.tableName).commit(() => [verdicts(deltas, { now: () => at })]);
  }
  return contents;
};

/** A change that moves a counter but not the verdict: never handed to clients. */
const blockAgain = (checkKey: string, at: number) =>
  changeWriter(table.db, table.tableName).commit(() => [
    verdicts([{ checkKey, type: 'URL', block: 1 }], { now: () => at }),
  ]);

const start = positionAt(base - 6.5 * DAY);
let written: string[] = [];

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
  // Changes on a few days of the week kept, with quiet days between them: 1,200 on the busiest.
  const early = await block('early', 40, base - 6 * DAY);
  await blockAgain(early[0] as string, base - 6 * DAY + 60_000);
  const middle = await block('middle', 1_200, base - 3 * DAY);
  const recent = await block('recent', 60, base - 60_000);
  written = [...early, ...middle, ...recent];
}, 300_000);

describe('POST /asset/changelog reads a bounded part of the log per call', () => {
  it('sends at most the fixed number of table queries per call from the oldest kept change over a week of the log', async () => {
    const { perCall, changes } = await follow(undefined, 1_000);

    expect(changes).toHaveLength(written.length);
    expect(Math.max(...perCall)).toBeLessThanOrEqual(CHANGELOG_QUERIES);
  });

  it('sends at most the fixed number of table queries for a page of 10,000 changes', async () => {
    const { page, commands: sent } = await readPage({ since: positionAt(base - 3 * DAY - 1), per_page: 10_000 });

    expect(page.changes.length).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(CHANGELOG_QUERIES);
  });

  it('hands the oldest kept changes to a first request repeated, the quiet days before them read once', async () => {
    const fresh = changelogModule.createHandler({
      keys: cachedKeyResolver(apiKeyRepository(table.db, table.tableName)),
      feed: verdictFeed(counted, table.tableName),
      now: later,
      timer: systemTimer,
    });
    const pages: Page[] = [];
    while (pages.length < 10 && !pages.some((page) => page.changes.length > 0)) {
      pages.push((await call(fresh, changelogEvent({ type: 'URL' }))).body as Page);
    }

    expect(pages.length).toBeLessThanOrEqual(2);
    expect(pages.at(-1)?.changes[0]?.content).toMatch(/^early-/);
  });

  it.each([25, 100])(
    'hands out every change that moved a verdict exactly once, in version order, over pages of %i within the bound',
    async (perPage) => {
      const { changes, perCall, pages } = await follow(start, perPage);

      const versions = changes.map((change) => change.version);
      expect(versions).toEqual([...new Set(versions)].sort());
      expect(changes.map((change) => change.content).sort()).toEqual([...written].sort());
      expect(changes.every((change) => change.status === 'BLOCKED')).toBe(true);
      expect(Math.max(...perCall)).toBeLessThanOrEqual(CHANGELOG_QUERIES);
      // A page that reached the bound before it found its changes still goes on.
      expect(pages.some((page) => page.changes.length < perPage && page.next_page !== null)).toBe(true);
    },
    120_000,
  );
});

describe('POST /asset/changelog under load from one key', () => {
  /** The most queries of the log the functions' client had in flight at once (the listing reads an index). */
  let logQueries = { now: 0, most: 0 };

  beforeAll(() => {
    runtime.tableClient().middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { KeyConditionExpression?: string; IndexName?: string };
        if (input.KeyConditionExpression === undefined || input.IndexName !== undefined) return next(args);
        logQueries.now++;
        logQueries.most = Math.max(logQueries.most, logQueries.now);
        try {
          return await next(args);
        } finally {
          logQueries.now--;
        }
      },
      { step: 'initialize', name: 'countLogQueries' },
    );
  });

  it('leaves another key answering without a 503, and answers the one key 200 or 429, while it makes 16 changelog calls at once', async () => {
    const listEvent = () =>
      arriving(
        apiEvent({
          method: 'POST',
          path: '/v2/asset/list',
          apiKey: GLOBEX_KEY,
          body: { type: 'URL', status: 'BLOCKED', startDate: new Date(base - 6 * DAY).toISOString().slice(0, 10) },
        }),
      );
    await call(listModule.handler, listEvent());
    logQueries = { now: 0, most: 0 };

    let settled = false;
    const burst = Promise.all(
      Array.from({ length: 16 }, () => call(changelogModule.handler, changelogEvent({ per_page: 1_000 }))),
    ).finally(() => {
      settled = true;
    });
    const neighbour: number[] = [];
    while (!settled || neighbour.length < 5) neighbour.push((await call(listModule.handler, listEvent())).statusCode);
    const statuses = (await burst).map((response) => response.statusCode);

    expect(neighbour.filter((status) => status !== 200)).toEqual([]);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses).toContain(200);
    expect(logQueries.most).toBeLessThanOrEqual(CHANGELOG_READS.running * CHANGELOG_READERS);
  });
});
