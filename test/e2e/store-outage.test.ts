import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { BASE_PATH, ROUTES, type Route } from '../../infra/routes.ts';
import { seed } from '../fixtures/seed.ts';
import { type StallingProxy, stallingProxy } from '../fixtures/stalling-proxy.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('outage');
const proxy: StallingProxy = await stallingProxy(table.endpoint);
// Handlers build their client on first use, so every call they make goes through the proxy. The budget
// is twice the production one (`npm run bench` measures that one), so a loaded CI machine answers in time when healthy.
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
process.env.STORE_ATTEMPT_TIMEOUT_MS = '5000';
process.env.STORE_CALL_BUDGET_MS = '8000';
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

/** A well-formed request for each route; routes without one get a generic request that still reaches the handler. */
const VALID: Record<string, { path?: string; body?: unknown }> = {
  'create-asset-group': { body: { name: 'Outage drill' } },
  'update-asset-group': { path: '/organization/asset-groups/1', body: { name: 'Websites' } },
  'delete-asset-group': { path: '/organization/asset-groups/999' },
  'create-assets': { body: { assets: [{ content: 'https://outage.example', type: 'URL' }] } },
  'update-asset': { path: '/organization/assets/1', body: { name: 'renamed' } },
  'delete-asset': { path: '/organization/assets/1' },
  'get-public-metrics': { body: { organizationSlug: 'acme' } },
  'check-asset': { body: { content: 'https://acme.com' } },
};

const call = async (route: Route) => {
  const valid = VALID[route.name] ?? {};
  const path = valid.path ?? route.path.replace(/\{\w+\}/g, '1');
  const body = valid.body ?? (route.method === 'GET' ? undefined : {});
  const started = performance.now();
  const response = await fetch(`${base}${path}`, {
    method: route.method,
    headers: { 'x-api-key': KEY },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    route: route.name,
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text,
    ms: Math.round(performance.now() - started),
  };
};

describe('a data store that stops answering', () => {
  it('gets 503 with Retry-After from every table-backed endpoint, answers from the check and the static routes, and recovers without a restart', async () => {
    const healthy = await Promise.all(ROUTES.map(call));
    proxy.stall();

    const stalled = await Promise.all(ROUTES.map(call));
    proxy.resume();
    const recovered = await Promise.all(ROUTES.map(call));

    console.log(
      'answer times (ms) healthy / stalled / recovered:\n' +
        ROUTES.map((r, i) => `  ${r.name}: ${healthy[i]?.ms} / ${stalled[i]?.ms} / ${recovered[i]?.ms}`).join('\n'),
    );
    for (const answer of healthy) expect(answer.status, answer.route).toBeLessThan(500);
    for (const [i, answer] of stalled.entries()) {
      // A route without a table, or one this test has no valid request for (a 4xx before any read), answers as usual.
      if (ROUTES[i]?.access === 'none' || (VALID[answer.route] === undefined && answer.status < 500)) {
        expect(answer.status, answer.route).toBeLessThan(500);
        continue;
      }
      if (answer.route === 'check-asset') {
        expect(answer.status).toBe(200);
        if (answer.body.code !== undefined) expect(answer.body.code).toBe('internal-error');
        continue;
      }
      expect(answer, answer.route).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
      // Every route shares the gateway's one client: with many fanned-out reads stalled at once, a call
      // may find no socket free and give up on its attempts before its budget ends.
      const message = expect.stringMatching(/^The data store (did not answer in time|is unavailable)$/);
      expect(answer.body, answer.route).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message,
        error: { code: 'SERVICE_UNAVAILABLE', message },
        requestId: expect.any(String),
      });
    }
    for (const answer of recovered) expect(answer.status, answer.route).toBeLessThan(500);
  });
});
