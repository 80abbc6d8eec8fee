import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExternalSource } from '../../../shared/domain/check/types.ts';
import { apiEvent, call } from '../../fixtures/api-event.ts';
import { givenApiKey, mockDb } from '../../fixtures/mock-db.ts';
import { captureOutput } from '../../fixtures/output.ts';
import { suffixes } from '../../fixtures/suffixes.ts';
import { memoryIndex } from '../check/world.ts';

const ddb = mockDb();
const output = captureOutput();

type Definition = { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] };
type EmfRecord = { _aws: { Timestamp: number; CloudWatchMetrics: Definition[] } } & { [key: string]: unknown };
const emf = () => output.lines().filter((line) => '_aws' in line) as EmfRecord[];
const definitions = (record: EmfRecord) => record._aws.CloudWatchMetrics;
const values = ({ _aws, ...rest }: EmfRecord) => rest;
/** The endpoint records: their figures, the latencies counted rather than listed. */
const endpointFigures = () =>
  emf()
    .filter((record) => 'Requests' in record)
    .map(({ _aws, Latency, ...rest }) => ({ ...rest, latencies: Array.isArray(Latency) ? Latency.length : 1 }));

const T = Date.parse('2026-06-01T12:00:00Z');
const at = (ms: number) => vi.setSystemTime(ms);

const hanging: ExternalSource = { name: 'vendor', budgetMs: 15, check: () => new Promise(() => {}) };
const failing: ExternalSource = {
  name: 'seal',
  budgetMs: 15,
  check: () => Promise.reject(new Error('seal API answered 503')),
};

/**
 * Each test is a new container: the held figures and the last publication time are module
 * state, so the modules that hold them are loaded afresh (the metrics instance reads
 * POWERTOOLS_METRICS_DISABLED when it is created).
 */
const container = async () => {
  vi.resetModules();
  const metrics = await import('../../../shared/metrics.ts');
  const runtime = await import('../../../shared/runtime.ts');
  const { createHandler } = await import('../../../functions/check/check.ts');
  const check = (sources: readonly ExternalSource[] = []) =>
    createHandler({
      suffixes,
      keys: runtime.keys(),
      index: memoryIndex({ block: ['acme-airdrop.xyz'] }),
      sources: () => sources,
    });
  return { metrics, check };
};

const checkEvent = (apiKey: string | null) =>
  apiEvent({ method: 'POST', path: '/v2/asset/check', apiKey, body: { content: 'https://acme-airdrop.xyz' } });

describe('embedded metrics of the requests', () => {
  beforeEach(() => {
    ddb.reset();
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.useFakeTimers({ now: T, toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
  });

  it('publish the first request of a container at once: endpoint figures under [service, route] and [service, area], the verdict by status and source, each source timeout and error', async () => {
    vi.stubEnv('ROUTE_AREA', 'check');
    const { check } = await container();
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });

    const response = await call(check([hanging, failing]), checkEvent(apiKey));

    expect(response.statusCode).toBe(200);
    expect(emf().map(definitions)).toEqual([
      [
        {
          Namespace: 'AssetProtection',
          Dimensions: [
            ['service', 'route'],
            ['service', 'area'],
          ],
          Metrics: [
            { Name: 'Requests', Unit: 'Count' },
            { Name: 'ClientErrors', Unit: 'Count' },
            { Name: 'ServerErrors', Unit: 'Count' },
            { Name: 'RateLimited', Unit: 'Count' },
            { Name: 'Latency', Unit: 'Milliseconds' },
          ],
        },
      ],
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
    ]);
    expect(emf().map(values)).toEqual([
      {
        service: 'asset-protection-local',
        route: 'test',
        area: 'check',
        Requests: 1,
        ClientErrors: 0,
        ServerErrors: 0,
        RateLimited: 0,
        Latency: expect.any(Number),
      },
      { service: 'asset-protection-local', status: 'BLOCKED', source: 'service', Verdicts: 1 },
      { service: 'asset-protection-local', source: 'vendor', SourceTimeouts: 1 },
      { service: 'asset-protection-local', source: 'seal', SourceErrors: 1 },
    ]);
  });

  it('publish the endpoint figures under [service, route] only where no area is configured (locally)', async () => {
    const { metrics } = await container();

    metrics.recordResponse('list-assets', 200, 3.5);

    expect(emf().flatMap(definitions)[0]?.Dimensions).toEqual([['service', 'route']]);
    expect(emf().map(values)).toEqual([
      {
        service: 'asset-protection-local',
        route: 'list-assets',
        Requests: 1,
        ClientErrors: 0,
        ServerErrors: 0,
        RateLimited: 0,
        Latency: 3.5,
      },
    ]);
  });

  it('hold the figures of the requests within the interval, then publish them in one record: counts summed, every latency a value of its own', async () => {
    const { metrics, check } = await container();
    const handler = check();
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    await call(handler, checkEvent(apiKey));
    const first = emf().length;

    at(T + 10_000);
    await call(handler, checkEvent(apiKey));
    at(T + 20_000);
    await call(handler, checkEvent(null));
    const held = emf().length;
    at(T + metrics.FLUSH_INTERVAL_MS);
    await call(handler, checkEvent(apiKey));

    expect(held).toBe(first);
    expect(endpointFigures()).toEqual([
      {
        service: 'asset-protection-local',
        route: 'test',
        Requests: 1,
        ClientErrors: 0,
        ServerErrors: 0,
        RateLimited: 0,
        latencies: 1,
      },
      {
        service: 'asset-protection-local',
        route: 'test',
        Requests: 3,
        ClientErrors: 1,
        ServerErrors: 0,
        RateLimited: 0,
        latencies: 3,
      },
    ]);
    expect(
      emf()
        .filter((record) => 'Verdicts' in record)
        .map(values),
    ).toEqual([
      { service: 'asset-protection-local', status: 'BLOCKED', source: 'service', Verdicts: 1 },
      { service: 'asset-protection-local', status: 'BLOCKED', source: 'service', Verdicts: 2 },
    ]);
  });

  it('sum the verdicts and the source failures of an interval by status, deciding source and failing source', async () => {
    const { metrics, check } = await container();
    const handler = check([hanging, failing]);
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    await call(handler, checkEvent(apiKey));

    at(T + 1_000);
    await call(handler, checkEvent(apiKey));
    at(T + metrics.FLUSH_INTERVAL_MS);
    await call(handler, checkEvent(apiKey));

    expect(emf().slice(-3).map(values)).toEqual([
      { service: 'asset-protection-local', status: 'BLOCKED', source: 'service', Verdicts: 2 },
      { service: 'asset-protection-local', source: 'vendor', SourceTimeouts: 2 },
      { service: 'asset-protection-local', source: 'seal', SourceErrors: 2 },
    ]);
  });

  it('publish as soon as a route holds 100 latencies, before the interval has passed', async () => {
    const { metrics } = await container();
    metrics.recordResponse('check-asset', 200, 1);

    at(T + 1_000);
    for (let i = 0; i < 99; i++) metrics.recordResponse('check-asset', 200, 2);
    const before = endpointFigures().length;
    metrics.recordResponse('check-asset', 200, 2);

    expect(before).toBe(1);
    expect(endpointFigures()).toEqual([
      expect.objectContaining({ Requests: 1, latencies: 1 }),
      expect.objectContaining({ Requests: 100, latencies: 100 }),
    ]);
  });

  it('publish figures held through a quiet spell under the time they were recorded, apart from the request that ends it', async () => {
    const { metrics } = await container();
    metrics.recordResponse('check-asset', 200, 1);
    at(T + 5_000);
    metrics.recordResponse('check-asset', 200, 2);

    at(T + 10 * metrics.FLUSH_INTERVAL_MS);
    metrics.recordResponse('check-asset', 200, 3);

    expect(emf().map((record) => [record._aws.Timestamp, record.Requests, record.Latency])).toEqual([
      [T, 1, 1],
      [T + 5_000, 1, 2],
      [T + 10 * metrics.FLUSH_INTERVAL_MS, 1, 3],
    ]);
  });

  it('count a 429 as rate limited and a client error, and a 5xx as a server error', async () => {
    const { metrics } = await container();
    metrics.recordResponse('create-assets', 201, 5);
    at(T + 1_000);
    metrics.recordResponse('create-assets', 429, 1);
    metrics.recordResponse('create-assets', 404, 1);
    metrics.recordResponse('create-assets', 503, 1);

    at(T + metrics.FLUSH_INTERVAL_MS);
    metrics.recordResponse('create-assets', 200, 1);

    expect(endpointFigures().at(-1)).toEqual({
      service: 'asset-protection-local',
      route: 'create-assets',
      Requests: 4,
      ClientErrors: 2,
      ServerErrors: 1,
      RateLimited: 1,
      latencies: 4,
    });
  });

  it('publish the entries and the content age of every synced list, and nothing for a list that failed', async () => {
    vi.resetModules();
    const { createHandler: createSync } = await import('../../../functions/check/sync.ts');
    const sync = createSync({
      suffixes,
      feeds: [
        { source: 'vendor', url: 'https://lists.example/vendor.txt' },
        { source: 'seal', url: 'https://lists.example/seal.json' },
      ],
      store: { latest: async () => undefined, pointer: async () => undefined, save: async () => {} },
      read: async (url) => {
        if (url.includes('vendor')) return 'evil.example.com\nscam.example.net\n';
        throw new Error(`${url} answered 503`);
      },
    });

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
    expect(emf().map(values)).toEqual([
      { service: 'asset-protection-local', source: 'vendor', ListEntries: 2 },
      { service: 'asset-protection-local', source: 'vendor', ListAge: 0 },
    ]);
  });
});
