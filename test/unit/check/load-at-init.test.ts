import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type LoopbackAws, loopbackAws } from '../../fixtures/loopback-aws.ts';

/**
 * When the check function's replica starts loading: at init only when Lambda initializes the
 * environment ahead of requests. With no snapshot store configured, loading it reads the whole
 * check index (Queries of its shards) from the table, here a loopback server that records every command.
 */
describe('the verdict replica of a new container', () => {
  let table: LoopbackAws;
  beforeAll(async () => {
    table = await loopbackAws();
  });
  afterAll(() => table.close());
  beforeEach(() => {
    table.reset();
    vi.resetModules();
    vi.stubEnv('DYNAMODB_ENDPOINT', table.endpoint);
    vi.stubEnv('VERDICTS_DIR', undefined);
    vi.stubEnv('VERDICTS_BUCKET', undefined);
  });
  afterEach(() => vi.unstubAllEnvs());

  const commands = () => table.received.map((request) => String(request.headers['x-amz-target']).split('.')[1]);

  /** The container's check index, built as the check function's module builds it at load. */
  const initialize = async (type: string) => {
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', type);
    const runtime = await import('../../../shared/runtime.ts');
    return runtime.checkIndex();
  };

  it.each(['provisioned-concurrency', 'snap-start'])(
    'starts loading at init when Lambda initializes ahead of requests (%s)',
    async (type) => {
      const index = await initialize(type);

      // No request is made: the load began at init, and its Query reaches the table.
      await vi.waitFor(() => expect(commands()).toContain('Query'), { timeout: 20_000, interval: 10 });
      await index.sync();
    },
  );

  it('loads on first use on demand, where init and the first request run back to back', async () => {
    const index = await initialize('on-demand');
    // An absence: as long as an init load takes to reach the table when it does start (above).
    await sleep(300);
    const atInit = commands();
    await Promise.resolve(index.lookup(['example.com'])).catch(() => undefined);

    expect(atInit).toEqual([]);
    expect(commands()).toContain('Query');
  });
});
