import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The logger and the metrics read these when they are created; the other tests keep both quiet.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'INFO';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

import { handler as dashboard } from '../../../functions/pages/dashboard.ts';
import { handler as docs } from '../../../functions/pages/docs.ts';
import { CONTENT_SECURITY_POLICY, PAGES, STATIC_FILES } from '../../../functions/pages/files.ts';
import { handler as openapi } from '../../../functions/pages/openapi.ts';
import { handler as staticFile } from '../../../functions/pages/static.ts';
import { FLUSH_INTERVAL_MS } from '../../../shared/metrics.ts';
import { apiEvent, context, errorBody } from '../../fixtures/api-event.ts';
import { captureOutput } from '../../fixtures/output.ts';

const output = captureOutput();

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
const invoke = (handler: unknown, event: APIGatewayProxyEventV2) => (handler as Handler)(event, context);

const accessLine = (route: string, status: number, extra: Record<string, unknown> = {}) => ({
  level: 'INFO',
  message: 'access',
  timestamp: expect.any(String),
  cold_start: expect.any(Boolean),
  function_request_id: context.awsRequestId,
  route,
  status,
  latencyMs: expect.any(Number),
  requestId: 'req-1',
  ...extra,
});
const accessLines = () => output.lines().filter((line) => line.message === 'access');
const endpointFigures = () =>
  output
    .lines()
    .filter((line) => '_aws' in line)
    .map(({ route, Requests, ClientErrors, ServerErrors }) => ({ route, Requests, ClientErrors, ServerErrors }));
const pageHeaders = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', vary: 'accept-encoding' };

describe('the public routes, through the same telemetry as every other route', () => {
  // Each test's request comes an interval after the last one, so its endpoint figures are published at once.
  let clock = Date.parse('2026-06-01T12:00:00Z');
  beforeEach(() => {
    clock += 2 * FLUSH_INTERVAL_MS;
    vi.useFakeTimers({ now: clock, toFake: ['Date'] });
  });
  afterEach(() => vi.useRealTimers());

  it.each([
    { name: 'docs', handler: docs, path: '/v2/docs', page: PAGES.docs, policy: CONTENT_SECURITY_POLICY.docs },
    {
      name: 'dashboard',
      handler: dashboard,
      path: '/v2/dashboard',
      page: PAGES.dashboard,
      policy: CONTENT_SECURITY_POLICY.dashboard,
    },
  ])(
    'the $name page writes one access line and its endpoint figures, and answers as before: its HTML and its content security policy',
    async ({ handler, path, page, policy }) => {
      const response = await invoke(handler, apiEvent({ path, apiKey: null }));

      expect(response).toEqual({
        statusCode: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          ...pageHeaders,
          'content-security-policy': policy,
          'cache-control': 'public, max-age=300',
        },
        body: readFileSync(page.path, 'utf8'),
        isBase64Encoded: false,
      });
      expect(accessLines()).toEqual([accessLine(`GET ${path}`, 200)]);
      expect(endpointFigures()).toEqual([{ route: 'test', Requests: 1, ClientErrors: 0, ServerErrors: 0 }]);
    },
  );

  it('the API description writes one access line and answers as before: the committed document as JSON', async () => {
    const response = await invoke(openapi, apiEvent({ path: '/v2/openapi.json', apiKey: null }));

    expect(response).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
      body: JSON.stringify(JSON.parse(readFileSync('functions/pages/openapi.json', 'utf8'))),
    });
    expect(accessLines()).toEqual([accessLine('GET /v2/openapi.json', 200)]);
  });

  it('a static file writes one access line and answers as before: the file with its type', async () => {
    const event = apiEvent({
      path: '/v2/static/dashboard.css',
      apiKey: null,
      pathParameters: { file: 'dashboard.css' },
    });

    const response = await invoke(staticFile, event);

    expect(response).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'text/css', ...pageHeaders, 'cache-control': 'public, max-age=3600' },
      body: readFileSync(STATIC_FILES['dashboard.css'].path, 'utf8'),
      isBase64Encoded: false,
    });
    expect(accessLines()).toEqual([accessLine('GET /v2/static/dashboard.css', 200)]);
  });

  it('an unknown static file is a 404 whose access line carries its error code', async () => {
    const event = apiEvent({ path: '/v2/static/secret.txt', apiKey: null, pathParameters: { file: 'secret.txt' } });

    const response = await invoke(staticFile, event);

    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body as string)).toEqual(errorBody('NOT_FOUND', 'No such file', { requestId: 'req-1' }));
    expect(accessLines()).toEqual([accessLine('GET /v2/static/secret.txt', 404, { errorCode: 'NOT_FOUND' })]);
    expect(endpointFigures()).toEqual([{ route: 'test', Requests: 1, ClientErrors: 1, ServerErrors: 0 }]);
  });
});
