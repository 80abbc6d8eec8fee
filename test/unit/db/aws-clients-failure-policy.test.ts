import { createServer, type Socket } from 'node:net';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/assets/list.ts';
import { secretCursorKeys } from '../../../shared/db/cursor-key-secret.ts';
import { cursorCodec } from '../../../shared/domain/core/cursor.ts';
import { ServiceUnavailableError } from '../../../shared/errors.ts';
import * as runtime from '../../../shared/runtime.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { givenApiKey, mockDb } from '../../fixtures/mock-db.ts';

/** A Secrets Manager and an SQS that accept connections and never answer. */
const sockets = new Set<Socket>();
let connections = 0;
const stalled = createServer((socket) => {
  connections++;
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});
const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:CursorSecret-abc';
const ENV = [
  'AWS_ENDPOINT_URL_SQS',
  'DEAD_LETTER_QUEUE_URL',
  'STORE_ATTEMPT_TIMEOUT_MS',
  'STORE_CALL_BUDGET_MS',
] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));
const ddb = mockDb();
let target: { endpoint: string };

/** The policy's two bounds, scaled down so the test waits less than a second: an attempt, and the whole call. */
const timeouts = (attemptMs: number, callBudgetMs: number) => {
  process.env.STORE_ATTEMPT_TIMEOUT_MS = String(attemptMs);
  process.env.STORE_CALL_BUDGET_MS = String(callBudgetMs);
};

beforeAll(async () => {
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  const address = stalled.address();
  const endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  target = { endpoint };
  process.env.AWS_ENDPOINT_URL_SQS = endpoint;
  process.env.DEAD_LETTER_QUEUE_URL = `${endpoint}/000000000000/dead-letters`;
});
beforeEach(() => {
  ddb.reset();
  connections = 0;
});
afterAll(async () => {
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => stalled.close(() => resolve()));
});

describe('the Secrets Manager requests of the cursor keys, under the failure policy', () => {
  it('returns 503 SERVICE_UNAVAILABLE with Retry-After when the key read outlives the call budget', async () => {
    timeouts(20_000, 400);
    const list = createHandler({
      keys: runtime.keys(),
      assets: runtime.assets(),
      groups: runtime.groups(),
      cursors: cursorCodec(secretCursorKeys(ARN, target)),
    });
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    ddb.on(QueryCommand).resolves({ Items: [], LastEvaluatedKey: { PK: 'ASSET#2' } });

    const response = await call(list, apiEvent({ apiKey, query: { per_page: '1' } }));

    expect(response).toEqual({
      statusCode: 503,
      headers: expect.objectContaining({ 'retry-after': '2' }),
      body: errorBody('SERVICE_UNAVAILABLE', 'The cursor key store did not answer in time'),
    });
  });

  it('cuts each attempt at the per-attempt timeout and gives up after 3 attempts, as unavailable', async () => {
    timeouts(150, 20_000);
    const keys = secretCursorKeys(ARN, target);

    const read = keys({ refresh: false });

    await expect(read).rejects.toThrow(new ServiceUnavailableError('The cursor key store is unavailable'));
    expect(connections).toBe(3);
  });
});

describe('the SQS client of the dead-letter queue, under the failure policy', () => {
  it('rejects a send that outlives the call budget with ServiceUnavailableError', async () => {
    timeouts(20_000, 400);

    const put = runtime.deadLetters().put({ id: 'm-1', body: '{}' }, 'unparseable');

    await expect(put).rejects.toThrow(new ServiceUnavailableError('The dead-letter queue did not answer in time'));
    expect(connections).toBe(1);
  });
});
