import { createServer, type Socket } from 'node:net';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { changeWriter, record } from '../../../shared/db/change-set.ts';
import { createDocumentClient } from '../../../shared/db/client.ts';
import { requestDeadline, timeLeft, withDeadline } from '../../../shared/deadline.ts';
import { ServiceUnavailableError } from '../../../shared/errors.ts';
import { apiHandler } from '../../../shared/http/api-handler.ts';
import { json } from '../../../shared/http/json.ts';
import { apiEvent, context, parse } from '../../fixtures/api-event.ts';

/** A table endpoint that accepts connections and never answers: a frozen store. */
const open = new Set<Socket>();
let connections = 0;
const frozen = createServer((socket) => {
  connections++;
  open.add(socket);
  socket.resume(); // reads, and so sees the client end the connection
  socket.on('close', () => open.delete(socket));
});
let endpoint = '';
const saved = process.env.STORE_REQUEST_BUDGET_MS;

beforeAll(async () => {
  await new Promise<void>((resolve) => frozen.listen(0, '127.0.0.1', resolve));
  const address = frozen.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
beforeEach(() => {
  connections = 0;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.STORE_REQUEST_BUDGET_MS;
  else process.env.STORE_REQUEST_BUDGET_MS = saved;
  for (const socket of open) socket.destroy();
  await new Promise<void>((resolve) => frozen.close(() => resolve()));
});

const get = new GetCommand({ TableName: 't', Key: { PK: 'A', SK: 'B' } });
// The tests' call budget and attempt timeout (vitest.config.ts) are tens of seconds: only the deadline can end these calls early.
const late = new ServiceUnavailableError('The data store did not answer in time');

describe('the deadline of a request, for its calls to the table', () => {
  it('ends a stalled call at the deadline with 503 and drops its connection', async () => {
    const db = createDocumentClient(endpoint);

    const outcome = withDeadline(Date.now() + 200, () => db.send(get));

    await expect(outcome).rejects.toEqual(late);
    // The server hears of the connection on its own turn of the event loop, late on a loaded machine.
    await vi.waitFor(() => expect(connections).toBe(1));
    await vi.waitFor(() => expect(open.size).toBe(0), { timeout: 5000 });
  });

  it('fails a call made after the deadline at once, without sending it', async () => {
    const db = createDocumentClient(endpoint);

    const outcome = withDeadline(Date.now() - 1, () => db.send(get));

    await expect(outcome).rejects.toEqual(late);
    expect(connections).toBe(0);
  });

  it('gives a second call in a row only what the first left: none, once the first stalled to the deadline', async () => {
    const db = createDocumentClient(endpoint);
    const failures: unknown[] = [];

    await withDeadline(Date.now() + 200, async () => {
      for (const _ of [1, 2]) await db.send(get).catch((error: unknown) => failures.push(error));
    });

    expect(failures).toEqual([late, late]);
    // The server hears of the connection on its own turn of the event loop, late on a loaded machine.
    await vi.waitFor(() => expect(connections).toBe(1));
  });

  it('starts no transaction retry past the deadline', async () => {
    const build = vi.fn(() => [record({ Put: { Item: { PK: 'A', SK: 'B' } } })]);
    const db = createDocumentClient(endpoint);

    const outcome = withDeadline(Date.now() + 200, () => changeWriter(db, 't').commit(build, { budgetMs: 60_000 }));

    await expect(outcome).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('does not bind work that outlives the request it started in', async () => {
    let later: Promise<number> | undefined;

    const during = await withDeadline(Date.now() + 60_000, async () => {
      later = new Promise((resolve) => setTimeout(() => resolve(timeLeft()), 20));
      return timeLeft();
    });

    expect(during).toBeLessThanOrEqual(60_000);
    expect(await later).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('an HTTP handler whose table stalls', () => {
  it('answers 503 with Retry-After by its one deadline, however many table calls it makes in a row', async () => {
    process.env.STORE_REQUEST_BUDGET_MS = '200';
    const db = createDocumentClient(endpoint);
    const keys = async () => ({
      kind: 'organization' as const,
      orgId: 'acme',
      scopes: ['read' as const],
      revoked: false,
      hash: 'h',
    });
    const handler = apiHandler(
      { request: { body: v.object({}, 'Body') }, caller: 'organization', scope: 'read', rateClass: 'read', keys },
      async () => {
        await db.send(get).catch(() => undefined);
        await db.send(new PutCommand({ TableName: 't', Item: { PK: 'A', SK: 'B' } }));
        return json(200, {});
      },
    );

    const event = apiEvent({ method: 'POST', body: {} });
    event.requestContext.timeEpoch = Date.now();

    const response = parse(await handler(event as never, context));

    expect(response).toMatchObject({
      statusCode: 503,
      headers: { 'retry-after': '2' },
      body: { code: 'SERVICE_UNAVAILABLE', message: 'The data store did not answer in time' },
    });
    // The server hears of the connection on its own turn of the event loop, late on a loaded machine.
    await vi.waitFor(() => expect(connections).toBe(1));
  });
});

describe('requestDeadline', () => {
  it('runs the budget from the request arrival, charging at most a second of waiting before the handler', () => {
    process.env.STORE_REQUEST_BUDGET_MS = '2500';
    const now = 1_000_000;

    const deadlines = [now, now - 400, now - 5000, now + 5000].map((receivedAt) =>
      requestDeadline(10_000, receivedAt, now),
    );

    expect(deadlines).toEqual([now + 2500, now + 2100, now + 1500, now + 2500]);
  });

  it('ends before the function would time out, leaving room for the answer', () => {
    process.env.STORE_REQUEST_BUDGET_MS = '2500';

    expect(requestDeadline(1000, 50_000, 50_000)).toBe(50_500);
  });
});
