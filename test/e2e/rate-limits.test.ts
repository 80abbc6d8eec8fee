import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, matchRoute } from '../../infra/local/gateway.ts';
import { tableClient } from '../../shared/runtime.ts';
import { assertDocumented } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-rate-limits');
const LIMITED = 'limited-check-key-0123456789';
const OTHER = 'other-check-key-0123456789';
const server = createGateway();
let base = '';

/** Write commands the functions' table client sends, by command name (the check's own client in this process). */
const WRITE_COMMANDS = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;
const writes: string[] = [];

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await seed(table.db, table.tableName, {
    apiKeys: [
      { key: LIMITED, organization: 'acme', rateLimits: { check: { perSecond: 5, burst: 5 } } },
      // Room for its 60 checks in this file's first test, and no more than a bucket shared with LIMITED would have.
      { key: OTHER, organization: 'globex', rateLimits: { check: { perSecond: 50, burst: 100 } } },
    ],
  });
  tableClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (WRITE_COMMANDS.test(context.commandName ?? '')) writes.push(context.commandName as string);
      return next(args);
    },
    { step: 'initialize', name: 'countWrites' },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  // The first check of a container loads the verdict replica; the verdicts compared below are those of a warm one.
  await check('demo-acme-0123456789abcdef', contentAt(0));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type CheckBody = { status: string; source?: string; reason?: string; code?: string };

const check = async (key: string, content: string) => {
  const response = await fetch(`${base}/asset/check`, {
    method: 'POST',
    headers: { 'X-API-KEY': key },
    body: JSON.stringify({ content }),
  });
  const body = (await response.json()) as CheckBody;
  const match = matchRoute('POST', '/asset/check');
  if (match) assertDocumented(match.route, response.status, body, (name) => response.headers.get(name));
  const header = (name: string) => response.headers.get(name);
  return { status: response.status, body, header };
};

const CONTENTS = [
  'https://acme.com',
  'https://app.acme.com/login',
  '0x52908400098527886E0F7030069857D2E4169EE7',
  'https://never-seen-before.example/path',
  'chrome://settings',
  'not a url at all',
];
const contentAt = (i: number) => CONTENTS[i % CONTENTS.length] as string;

describe('per-key rate limits through the local gateway', () => {
  it("refuses a 5/s key's burst of 30 checks beyond its budget, while another key's 30 checks in the same window answer as before", async () => {
    const before = await Promise.all(Array.from({ length: 30 }, (_, i) => check(OTHER, contentAt(i))));

    const started = performance.now();
    const [limited, other] = await Promise.all([
      Promise.all(Array.from({ length: 30 }, (_, i) => check(LIMITED, contentAt(i)))),
      Promise.all(Array.from({ length: 30 }, (_, i) => check(OTHER, contentAt(i)))),
    ]);
    const seconds = (performance.now() - started) / 1000;

    const refused = limited.filter((response) => response.status === 429);
    const served = limited.filter((response) => response.status === 200);
    expect(refused.length + served.length).toBe(30);
    expect(served.length).toBeGreaterThanOrEqual(5);
    expect(served.length).toBeLessThanOrEqual(5 + Math.ceil(5 * seconds));
    expect(refused.length).toBeGreaterThan(0);
    for (const response of refused) {
      expect(response.body).toMatchObject({
        code: 'TOO_MANY_REQUESTS',
        message: 'Rate limit exceeded for check requests',
        error: { code: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded for check requests' },
      });
      expect(Number(response.header('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.header('ratelimit-limit')).toBe('5');
      expect(response.header('ratelimit-remaining')).toBe('0');
      expect(Number(response.header('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    }
    for (const response of served) {
      expect(response.header('ratelimit-limit')).toBe('5');
      expect(response.header('retry-after')).toBeNull();
    }
    expect(other.map((response) => response.status)).toEqual(Array(30).fill(200));
    expect(other.map((response) => response.body)).toEqual(before.map((response) => response.body));
    expect(new Set(other.map((response) => response.body.status))).toEqual(new Set(['ALLOWED', 'UNKNOWN']));
  });

  it('serves the limited key again after Retry-After', async () => {
    const burst = await Promise.all(Array.from({ length: 10 }, () => check(LIMITED, contentAt(0))));
    const refused = burst.find((response) => response.status === 429);
    const wait = Number(refused?.header('retry-after'));

    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    const again = await check(LIMITED, contentAt(0));

    expect(wait).toBe(1);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('ALLOWED');
  });

  it('writes nothing to the table for 1,000 checks, served and refused alike, where one group create writes', async () => {
    writes.length = 0;

    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => check(i % 5 === 0 ? LIMITED : OTHER, contentAt(batch * 50 + i))),
      );
    }

    const checkWrites = [...writes];
    await fetch(`${base}/organization/asset-groups`, {
      method: 'POST',
      headers: { 'X-API-KEY': 'demo-acme-0123456789abcdef' },
      body: JSON.stringify({ name: 'Counted' }),
    });

    expect(checkWrites).toEqual([]);
    expect(writes.length).toBeGreaterThan(0);
  });
});
