import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The logger reads its level when it is created; the other tests keep it silent.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'INFO';
});

import { handler as createAssets } from '../../../functions/assets/create.ts';
import { handler as listAssets } from '../../../functions/assets/list.ts';
import { createHandler as createCheck } from '../../../functions/check/check.ts';
import { BASE_PATHS, ROUTES } from '../../../infra/routes.ts';
import { cursorCodec } from '../../../shared/domain/core/cursor.ts';
import { SAMPLED_ROUTES } from '../../../shared/http/telemetry.ts';
import * as runtime from '../../../shared/runtime.ts';
import { apiEvent, call, context } from '../../fixtures/api-event.ts';
import { givenApiKey, mockDb } from '../../fixtures/mock-db.ts';
import { captureOutput } from '../../fixtures/output.ts';
import { suffixes } from '../../fixtures/suffixes.ts';
import { memoryIndex } from '../check/world.ts';

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

  it('records route, status, latency, request ids, organization and cold start of a 200, and no key or cursor', async () => {
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
        timestamp: expect.any(String),
        cold_start: expect.any(Boolean),
        function_request_id: context.awsRequestId,
        route: 'GET /v2/organization/assets',
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

describe('the access lines of the check routes', () => {
  beforeEach(() => {
    ddb.reset();
    vi.stubEnv('ROUTE_NAME', 'check-asset');
  });
  afterEach(() => vi.unstubAllEnvs());

  /** Built after the sample rate is set: a function reads it when it loads. */
  const checkHandler = (sampleRate: string) => {
    vi.stubEnv('ACCESS_LOG_SAMPLE_RATE', sampleRate);
    return createCheck({
      suffixes,
      keys: runtime.keys(),
      index: memoryIndex({ block: ['acme-airdrop.xyz'] }),
      sources: () => [],
    });
  };
  const checkEvent = (apiKey: string | null) =>
    apiEvent({ method: 'POST', path: '/v2/asset/check', apiKey, body: { content: 'https://acme-airdrop.xyz' } });

  it('are sampled among successful requests; every failed one still writes its line', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    const handler = checkHandler('0');

    const ok = await call(handler, checkEvent(apiKey));
    const refused = await call(handler, checkEvent(null));

    expect([ok.statusCode, refused.statusCode]).toEqual([200, 401]);
    expect(accessLines()).toEqual([
      expect.objectContaining({ route: 'POST /v2/asset/check', status: 401, errorCode: 'UNAUTHORIZED' }),
    ]);
  });

  it('write a successful request drawn below the sample rate', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    const handler = checkHandler('0.25');
    const draws = vi.spyOn(Math, 'random');

    draws.mockReturnValue(0.24);
    await call(handler, checkEvent(apiKey));
    draws.mockReturnValue(0.25);
    await call(handler, checkEvent(apiKey));

    expect(accessLines()).toEqual([
      expect.objectContaining({ route: 'POST /v2/asset/check', status: 200, orgId: 'acme' }),
    ]);
  });

  it('leave the lines of every other route complete', async () => {
    vi.stubEnv('ROUTE_NAME', 'list-assets');
    vi.stubEnv('ACCESS_LOG_SAMPLE_RATE', '0');
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    ddb.on(QueryCommand).resolves({ Items: [] });

    const response = await call(listAssets, apiEvent({ path: '/v2/organization/assets', apiKey }));

    expect(response.statusCode).toBe(200);
    expect(accessLines()).toEqual([expect.objectContaining({ route: 'GET /v2/organization/assets', status: 200 })]);
  });

  it('stay within 400 bytes with a deployed function’s context, an X-Ray trace, the longest route key of the class and the longest organization slug', async () => {
    const orgId = 'a'.repeat(63);
    const apiKey = givenApiKey(ddb, { orgId });
    const handler = checkHandler('0.01');
    vi.spyOn(Math, 'random').mockReturnValue(0);
    vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-6745f0c2-3b1d5f7a9c2e4b6d8f0a1c3e;Parent=53995c3f42cd8ad8;Sampled=1');
    // CloudFormation names a function after its stack and construct, up to 64 characters.
    const functionName = 'asset-protection-prod-CheckNes-checkassetFunction4C1B9D2E-Xk2bLmN9Qp'.slice(0, 64);
    const deployed: Context = {
      ...context,
      functionName,
      invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
      memoryLimitInMB: '1024',
      awsRequestId: '8f0e5b2a-6c1d-4e3f-9a7b-2d4c6e8f0a1b',
    };
    const routeKey = ROUTES.filter((route) => SAMPLED_ROUTES.has(route.name))
      .flatMap((route) => BASE_PATHS.map((base) => `${route.method} ${base}${route.path}`))
      .reduce((longest, key) => (key.length > longest.length ? key : longest));
    const event = { ...checkEvent(apiKey), routeKey };
    event.requestContext = { ...event.requestContext, requestId: 'cKx9aiWqIAMEJgw=' };
    const invoke = handler as unknown as (
      e: APIGatewayProxyEventV2,
      c: Context,
    ) => Promise<APIGatewayProxyStructuredResultV2>;

    const response = await invoke(event, deployed);

    expect(response.statusCode).toBe(200);
    const lines = output.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      xray_trace_id: '1-6745f0c2-3b1d5f7a9c2e4b6d8f0a1c3e',
      orgId,
    });
    expect(Buffer.byteLength(lines[0] as string)).toBeLessThanOrEqual(400);
  });

  it('are those of routes the route table has', () => {
    expect(ROUTES.map((route) => route.name)).toEqual(expect.arrayContaining([...SAMPLED_ROUTES]));
  });
});
