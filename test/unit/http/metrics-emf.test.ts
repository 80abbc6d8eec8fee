import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The metrics instance reads this when it is created; the other tests keep metrics off.
vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

import { createHandler as createCheck } from '../../../functions/check/check.ts';
import { createHandler as createSync } from '../../../functions/check/sync.ts';
import type { ExternalSource } from '../../../shared/domain/check/types.ts';
import * as runtime from '../../../shared/runtime.ts';
import { apiEvent, call } from '../../fixtures/api-event.ts';
import { givenApiKey, mockDb } from '../../fixtures/mock-db.ts';
import { captureOutput } from '../../fixtures/output.ts';
import { memoryIndex } from '../check/world.ts';

const ddb = mockDb();
const output = captureOutput();
const emf = () => output.lines().filter((line) => '_aws' in line);
const definitions = (record: Record<string, unknown>) =>
  (record._aws as { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: unknown[] }[] })
    .CloudWatchMetrics;

const hanging: ExternalSource = { name: 'vendor', budgetMs: 15, check: () => new Promise(() => {}) };
const failing: ExternalSource = {
  name: 'seal',
  budgetMs: 15,
  check: () => Promise.reject(new Error('seal API answered 503')),
};
const check = createCheck({
  keys: runtime.keys(),
  index: memoryIndex({ block: ['acme-airdrop.xyz'] }),
  sources: () => [hanging, failing],
});

describe('embedded metrics', () => {
  beforeEach(() => ddb.reset());
  afterEach(() => vi.useRealTimers());

  it('publish a check verdict by status and deciding source, each source timeout and error, and the endpoint figures', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });

    const response = await call(
      check,
      apiEvent({ method: 'POST', path: '/v2/asset/check', apiKey, body: { content: 'https://acme-airdrop.xyz' } }),
    );

    expect(response.statusCode).toBe(200);
    const records = emf();
    expect(records.map(definitions)).toEqual([
      [
        {
          Namespace: 'AssetProtection',
          Dimensions: [
            ['service', 'status'],
            ['service', 'source'],
          ],
          Metrics: [{ Name: 'Verdicts', Unit: 'Count' }],
        },
      ],
      [
        {
          Namespace: 'AssetProtection',
          Dimensions: [['service', 'source']],
          Metrics: [{ Name: 'SourceTimeouts', Unit: 'Count' }],
        },
      ],
      [
        {
          Namespace: 'AssetProtection',
          Dimensions: [['service', 'source']],
          Metrics: [{ Name: 'SourceErrors', Unit: 'Count' }],
        },
      ],
      [
        {
          Namespace: 'AssetProtection',
          Dimensions: [['service', 'route']],
          Metrics: [
            { Name: 'Requests', Unit: 'Count' },
            { Name: 'ClientErrors', Unit: 'Count' },
            { Name: 'ServerErrors', Unit: 'Count' },
            { Name: 'Latency', Unit: 'Milliseconds' },
          ],
        },
      ],
    ]);
    const values = records.map(({ _aws, ...rest }) => rest);
    expect(values).toEqual([
      { service: 'asset-protection-local', status: 'BLOCKED', source: 'service', Verdicts: 1 },
      { service: 'asset-protection-local', source: 'vendor', SourceTimeouts: 1 },
      { service: 'asset-protection-local', source: 'seal', SourceErrors: 1 },
      {
        service: 'asset-protection-local',
        route: 'test',
        Requests: 1,
        ClientErrors: 0,
        ServerErrors: 0,
        Latency: expect.any(Number),
      },
    ]);
  });

  it('count a rejected request as a 4xx of its endpoint', async () => {
    const response = await call(
      check,
      apiEvent({ method: 'POST', path: '/v2/asset/check', apiKey: null, body: { content: 'x' } }),
    );

    expect(response.statusCode).toBe(401);
    expect(emf().map(({ _aws, Latency, ...rest }) => rest)).toEqual([
      { service: 'asset-protection-local', route: 'test', Requests: 1, ClientErrors: 1, ServerErrors: 0 },
    ]);
  });

  it('publish the entries and the content age of every synced list, and nothing for a list that failed', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T12:10:00Z'), toFake: ['Date'] });
    const sync = createSync({
      feeds: [
        { source: 'vendor', url: 'https://lists.example/vendor.txt' },
        { source: 'seal', url: 'https://lists.example/seal.json' },
      ],
      store: { latest: async () => undefined, pointer: async () => undefined, save: async () => {} },
    });
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (url) =>
      String(url).includes('vendor')
        ? new Response('evil.example.com\nscam.example.net\n')
        : new Response('unavailable', { status: 503 }),
    );

    await expect(sync()).rejects.toThrow('List sync failed for seal');

    expect(emf().map(definitions)).toEqual([
      [
        {
          Namespace: 'AssetProtection',
          Dimensions: [['service', 'source']],
          Metrics: [{ Name: 'ListEntries', Unit: 'Count' }],
        },
      ],
      [
        {
          Namespace: 'AssetProtection',
          Dimensions: [['service', 'source']],
          Metrics: [{ Name: 'ListAge', Unit: 'Seconds' }],
        },
      ],
    ]);
    expect(emf().map(({ _aws, ...rest }) => rest)).toEqual([
      { service: 'asset-protection-local', source: 'vendor', ListEntries: 2 },
      { service: 'asset-protection-local', source: 'vendor', ListAge: 0 },
    ]);
  });
});
