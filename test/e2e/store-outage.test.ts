import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { BASE_PATH, ROUTES, type Route } from '../../infra/routes.ts';
import { REQUEST_BUDGET_MS } from '../../shared/deadline.ts';
import { answersFromReplica, hasValidRequest, needsTable, requestFor } from '../fixtures/route-requests.ts';
import { seed } from '../fixtures/seed.ts';
import { type StallingProxy, stallingProxy } from '../fixtures/stalling-proxy.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('outage');
const proxy: StallingProxy = await stallingProxy(table.endpoint);
// Handlers build their client on first use, so every call they make goes through the proxy. The call
// budget is twice the production one, so a loaded CI machine answers in time when healthy; while the
// store is stalled, requests run under the production request deadline (`npm run bench -- outage`
// measures its answer times).
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
process.env.STORE_ATTEMPT_TIMEOUT_MS = '5000';
process.env.STORE_CALL_BUDGET_MS = '8000';
const TEST_REQUEST_BUDGET = process.env.STORE_REQUEST_BUDGET_MS;
const server = createGateway();
let base = '';
const KEY = 'demo-acme-0123456789abcdef';

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE_PATH}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await proxy.close();
});

const call = async (route: Route) => {
  const { path, body } = requestFor(route);
  const started = performance.now();
  const response = await fetch(`${base}${path}`, { method: route.method, headers: { 'x-api-key': KEY }, body });
  const text = await response.text();
  return {
    route: route.name,
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: /^application\/(taxii\+)?json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text,
    ms: Math.round(performance.now() - started),
  };
};

/*
 * The store stays frozen until every request sent while it is frozen has answered, so each answer
 * came from the route giving up on its own (a route that waited for the store would never answer
 * and the test would time out). The answer times themselves are the benchmark's (`npm run bench -- outage`).
 */
const MIN_STALLED_REQUESTS = 100;

describe('a data store that stops answering', () => {
  it('gets 503 with Retry-After from every table-backed endpoint by the request deadline, answers from the check and the static routes, and recovers without a restart', async () => {
    const healthy = await Promise.all(ROUTES.map(call));
    const tableRoutes = ROUTES.filter(needsTable);
    const sent = Array.from({ length: Math.ceil(MIN_STALLED_REQUESTS / tableRoutes.length) }, () => ROUTES).flat();
    process.env.STORE_REQUEST_BUDGET_MS = String(REQUEST_BUDGET_MS);
    proxy.stall();

    const stalled = await Promise.all(sent.map(call));
    proxy.resume();
    if (TEST_REQUEST_BUDGET === undefined) delete process.env.STORE_REQUEST_BUDGET_MS;
    else process.env.STORE_REQUEST_BUDGET_MS = TEST_REQUEST_BUDGET;
    const recovered = await Promise.all(ROUTES.map(call));

    console.log(
      `answer times (ms) healthy / stalled (slowest of ${sent.length / ROUTES.length}) / recovered:\n` +
        ROUTES.map((r, i) => {
          const slowest = Math.max(...stalled.filter((answer) => answer.route === r.name).map((answer) => answer.ms));
          const statuses = [...new Set(stalled.filter((answer) => answer.route === r.name).map((a) => a.status))];
          return `  ${r.name}: ${healthy[i]?.ms} / ${slowest} (${statuses.join(', ')}) / ${recovered[i]?.ms}`;
        }).join('\n'),
    );
    for (const answer of healthy) expect(answer.status, answer.route).toBeLessThan(500);
    expect(
      stalled.filter((answer) => tableRoutes.some((route) => route.name === answer.route)).length,
    ).toBeGreaterThanOrEqual(MIN_STALLED_REQUESTS);
    for (const [i, answer] of stalled.entries()) {
      const route = sent[i] as Route;
      // A route this test has no valid request for answers its 4xx before any read.
      if (route.access === 'none' || (!hasValidRequest(route) && answer.status < 500)) {
        expect(answer.status, answer.route).toBeLessThan(500);
        continue;
      }
      if (answersFromReplica(route) && answer.route !== 'check-asset') {
        expect(answer.status, answer.route).toBe(200);
        continue;
      }
      if (answer.route === 'check-asset') {
        expect(answer.status).toBe(200);
        if (answer.body.code !== undefined) expect(answer.body.code).toBe('internal-error');
        continue;
      }
      // Changelog reads take turns in a container: one that waited its longest for a turn gets 429.
      if (answer.route === 'get-changelog' && answer.status === 429) {
        expect(answer, answer.route).toMatchObject({ retryAfter: expect.stringMatching(/^\d+$/) });
        continue;
      }
      expect(answer, answer.route).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
      // Every route shares the gateway's one client: with many fanned-out reads stalled at once, a call
      // may find no socket free and give up on its attempts before its budget ends.
      const message = expect.stringMatching(/^The data store (did not answer in time|is unavailable)$/);
      // TAXII routes answer TAXII error resources.
      expect(answer.body, answer.route).toEqual(
        answer.route.startsWith('taxii-')
          ? { title: 'Service Unavailable', description: message, http_status: '503' }
          : {
              code: 'SERVICE_UNAVAILABLE',
              message,
              error: { code: 'SERVICE_UNAVAILABLE', message },
              requestId: expect.any(String),
            },
      );
    }
    for (const answer of recovered) expect(answer.status, answer.route).toBeLessThan(500);
  });
});
