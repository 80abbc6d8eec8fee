import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';

// The logger reads its level when it is created; the other tests keep it silent.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'INFO';
});

import { handler as createAssets } from '../../../functions/assets/create.ts';
import { handler as listAssets } from '../../../functions/assets/list.ts';
import { cursorCodec } from '../../../shared/domain/cursor.ts';
import { apiEvent, call, context } from '../../fixtures/api-event.ts';
import { givenApiKey, mockDb } from '../../fixtures/mock-db.ts';
import { captureOutput } from '../../fixtures/output.ts';

const ddb = mockDb();
const output = captureOutput();
const BODY_MARKER = 'body-marker-https://private.example/wallet';

const cursorFor = (orgId: string) =>
  cursorCodec(() => 'test-cursor-secret').seal(
    { orgId, filter: JSON.stringify([null, null, null]) },
    JSON.stringify({
      PK: 'ASSET#7',
      SK: 'ASSET',
      liveOrg: `ORG#${orgId}`,
      liveSK: '2026-01-01T00:00:00Z#0000000000000007',
    }),
  );

/** Every line written must be JSON, and none may hold the key, the body or the cursor. */
const expectNothingSecret = (secrets: string[]) => {
  const text = output.text();
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(() => output.lines()).not.toThrow();
};

const accessLines = () => output.lines().filter((line) => line.message === 'access');

describe('the access line', () => {
  beforeEach(() => ddb.reset());

  it('records route, method, status, latency, request ids, organization and cold start of a 200, and no key or cursor', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    ddb.on(QueryCommand).resolves({ Items: [] });
    const cursor = await cursorFor('acme');

    const response = await call(
      listAssets,
      apiEvent({ path: '/v2/organization/assets', apiKey, query: { next_page: cursor } }),
    );

    expect(response.statusCode).toBe(200);
    expect(accessLines()).toEqual([
      {
        level: 'INFO',
        message: 'access',
        service: 'asset-protection-local',
        timestamp: expect.any(String),
        sampling_rate: 0,
        cold_start: expect.any(Boolean),
        function_name: 'test',
        function_arn: context.invokedFunctionArn,
        function_memory_size: '512',
        function_request_id: context.awsRequestId,
        route: 'GET /v2/organization/assets',
        method: 'GET',
        status: 200,
        latencyMs: expect.any(Number),
        requestId: 'req-1',
        orgId: 'acme',
      },
    ]);
    expectNothingSecret([apiKey, cursor]);
  });

  it('records the error code of a 400 and never the request body', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });

    const response = await call(
      createAssets,
      apiEvent({
        method: 'POST',
        path: '/v2/organization/assets',
        apiKey,
        body: { assets: [{ content: BODY_MARKER, type: 'WEBSITE' }] },
      }),
    );

    expect(response.statusCode).toBe(400);
    expect(accessLines()).toEqual([
      expect.objectContaining({ level: 'INFO', status: 400, errorCode: 'BAD_REQUEST', orgId: 'acme' }),
    ]);
    expectNothingSecret([apiKey, BODY_MARKER]);
  });

  it('records a 401 without an organization, and never the key that was refused', async () => {
    const apiKey = 'unknown-key-0123456789abcdef';
    ddb.on(GetCommand).resolves({});

    const response = await call(listAssets, apiEvent({ path: '/v2/organization/assets', apiKey }));

    expect(response.statusCode).toBe(401);
    const [line] = accessLines();
    expect(line).toMatchObject({ status: 401, errorCode: 'UNAUTHORIZED' });
    expect(line).not.toHaveProperty('orgId');
    expectNothingSecret([apiKey]);
  });

  it('writes the access line at error level for a 500, after the detailed line with the error, and no key or cursor', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    ddb.on(QueryCommand).rejects(new Error('socket hang up'));
    const cursor = await cursorFor('acme');

    const response = await call(
      listAssets,
      apiEvent({ path: '/v2/organization/assets', apiKey, query: { next_page: cursor } }),
    );

    expect(response.statusCode).toBe(500);
    const lines = output.lines();
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['ERROR', 'Unhandled error'],
      ['ERROR', 'access'],
    ]);
    expect(lines[0]).toMatchObject({
      requestId: 'req-1',
      function_request_id: context.awsRequestId,
      error: { name: 'Error', message: 'socket hang up', stack: expect.any(String) },
    });
    expect(lines[1]).toMatchObject({ status: 500, errorCode: 'INTERNAL_SERVER_ERROR', orgId: 'acme' });
    expectNothingSecret([apiKey, cursor]);
  });
});
