import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { Segment, type Subsegment } from 'aws-xray-sdk-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDocumentClient } from '../../../shared/db/client.ts';
import { NotFoundError } from '../../../shared/errors.ts';
import { publicHandler } from '../../../shared/http/api-handler.ts';
import { json } from '../../../shared/http/json.ts';
import { containerTracer } from '../../../shared/tracing.ts';
import { context } from '../../fixtures/api-event.ts';
import { type LoopbackAws, loopbackAws } from '../../fixtures/loopback-aws.ts';

let dynamo: LoopbackAws;

beforeAll(async () => {
  dynamo = await loopbackAws();
  // The tracer records only in Lambda; `_HANDLER` names the handler's subsegment.
  vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
  vi.stubEnv('_HANDLER', 'index.handler');
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
  vi.stubEnv('_HANDLER', 'index.handler');
  dynamo.reset();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await dynamo.close();
});

/** A route that reads one item from the table, through the client every repository uses, and answers 200 or 404. */
const route = (found = true) => {
  const db = createDocumentClient(dynamo.endpoint);
  return publicHandler(async () => {
    await db.send(new GetCommand({ TableName: 'table', Key: { PK: 'a', SK: 'b' } }));
    if (!found) throw new NotFoundError('No such thing');
    return json(200, { ok: true });
  });
};

/** Invokes `handler` under a segment of its own, as Lambda's facade segment of an invocation; returns that segment. */
const invokeTraced = async (handler: ReturnType<typeof route>) => {
  const tracer = containerTracer();
  const segment = new Segment('invocation');
  const response = await tracer.provider.getNamespace().runAndReturn(() => {
    tracer.setSegment(segment);
    return handler({ rawPath: '/', headers: {} } as unknown as APIGatewayProxyEventV2, context);
  });
  return { segment, response };
};
const named = (segments: Subsegment[] | undefined, name: string) => segments?.filter((s) => s.name === name) ?? [];

describe('tracing of a traced function', () => {
  it('records the invocation as a handler subsegment, and each DynamoDB call in it as a subsegment naming the operation and table', async () => {
    const { segment, response } = await invokeTraced(route());

    expect(response).toMatchObject({ statusCode: 200 });
    const [handlerSegment] = named(segment.subsegments, '## index.handler');
    expect(handlerSegment?.in_progress).toBeFalsy();
    const [call] = named(handlerSegment?.subsegments, 'DynamoDB');
    expect(call?.namespace).toBe('aws');
    expect((call as unknown as { aws?: Record<string, unknown> }).aws).toMatchObject({
      operation: 'GetItem',
      table_name: 'table',
    });
    expect(dynamo.received).toHaveLength(1);
  });

  it('closes the handler subsegment without a fault when the route answers a client error, and with one when it fails', async () => {
    const { segment: clientError, response } = await invokeTraced(route(false));
    const { segment: failure, response: failed } = await invokeTraced(
      publicHandler(() => Promise.reject(new Error('broken'))),
    );

    expect(response).toMatchObject({ statusCode: 404 });
    expect(failed).toMatchObject({ statusCode: 500 });
    const [answered] = named(clientError.subsegments, '## index.handler');
    const [broken] = named(failure.subsegments, '## index.handler');
    expect(answered?.in_progress).toBeFalsy();
    expect((answered as unknown as { fault?: boolean }).fault).toBeFalsy();
    expect(broken?.in_progress).toBeFalsy();
    expect((broken as unknown as { fault?: boolean }).fault).toBe(true);
  });

  it('records nothing where tracing is turned off (POWERTOOLS_TRACE_ENABLED=false, as CDK sets it for the untraced functions)', async () => {
    vi.stubEnv('POWERTOOLS_TRACE_ENABLED', 'false');

    const { segment, response } = await invokeTraced(route());

    expect(response).toMatchObject({ statusCode: 200 });
    expect(segment.subsegments ?? []).toEqual([]);
    expect(dynamo.received).toHaveLength(1);
  });
});
