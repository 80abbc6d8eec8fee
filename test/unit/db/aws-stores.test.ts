import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secretCursorKeys } from '../../../shared/db/cursor-key-secret.ts';
import { sqsRunQueue } from '../../../shared/db/detection-sources.ts';
import { s3Objects } from '../../../shared/db/s3.ts';
import { sqsClient } from '../../../shared/db/sqs.ts';
import type { DetectionRun } from '../../../shared/domain/detections/index.ts';
import { ServiceUnavailableError } from '../../../shared/errors.ts';
import {
  type Answer,
  jsonError,
  type LoopbackAws,
  loopbackAws,
  never,
  objectsIn,
  refusedEndpoint,
  reply,
  s3Error,
} from '../../fixtures/loopback-aws.ts';

let aws: LoopbackAws;

const policyEnv = ['STORE_ATTEMPT_TIMEOUT_MS', 'STORE_CALL_BUDGET_MS'] as const;
const savedPolicy = Object.fromEntries(policyEnv.map((name) => [name, process.env[name]]));
/** The policy's two bounds, scaled down so a test waits less than a second: an attempt, and the whole call. */
const timeouts = (attemptMs: number, callBudgetMs: number) => {
  process.env.STORE_ATTEMPT_TIMEOUT_MS = String(attemptMs);
  process.env.STORE_CALL_BUDGET_MS = String(callBudgetMs);
};

beforeAll(async () => {
  aws = await loopbackAws();
});
beforeEach(() => {
  aws.reset();
});
afterEach(() => {
  for (const name of policyEnv) {
    if (savedPolicy[name] === undefined) delete process.env[name];
    else process.env[name] = savedPolicy[name];
  }
});
afterAll(() => aws.close());

/** An object whose headers arrive and whose body never ends. */
const stalledBody: Answer = (_, response) => {
  response.writeHead(200, { 'content-length': '100' }).write('part of it');
};

describe('S3 objects under the failure policy', () => {
  const objects = () => s3Objects(aws.endpoint);

  it('reads back the bytes of an object it put, under a key with spaces and reserved characters', async () => {
    const bucket = new Map<string, Buffer>();
    aws.otherwise(objectsIn(bucket));
    const key = 'lists/seal (1)/a b+c*.json';

    await objects().putObject('lists-bucket', key, Buffer.from('{"source":"seal"}'), 'application/json');
    const bytes = await objects().getObject('lists-bucket', key);

    expect(Buffer.from(bytes ?? []).toString()).toBe('{"source":"seal"}');
    expect([...bucket.keys()]).toEqual(['/lists-bucket/lists/seal%20%281%29/a%20b%2Bc%2A.json']);
  });

  it('puts an object with its content type and cache control', async () => {
    await objects().putObject('b', 'blocklist/v1.bin', Buffer.from('x'), 'application/octet-stream', 'max-age=60');

    const [put] = aws.received;
    expect({
      method: put?.method,
      path: put?.path,
      type: put?.headers['content-type'],
      cacheControl: put?.headers['cache-control'],
    }).toEqual({
      method: 'PUT',
      path: '/b/blocklist/v1.bin',
      type: 'application/octet-stream',
      cacheControl: 'max-age=60',
    });
  });

  it('has no object for NoSuchKey, nor for a 404 that names no error', async () => {
    aws.answer(s3Error(404, 'NoSuchKey'), reply(404));

    expect(await objects().getObject('b', 'missing.json')).toBeUndefined();
    expect(await objects().getObject('b', 'missing.json')).toBeUndefined();
    expect(aws.received).toHaveLength(2);
  });

  it('rejects a missing bucket or a denied read with the service error, without retrying', async () => {
    aws.answer(s3Error(404, 'NoSuchBucket'), s3Error(403, 'AccessDenied'));

    await expect(objects().getObject('b', 'k')).rejects.toMatchObject({
      name: 'NoSuchBucket',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(objects().getObject('b', 'k')).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    expect(aws.received).toHaveLength(2);
  });

  it('puts a new object with If-None-Match: * and answers true', async () => {
    expect(await objects().putNewObject('b', 'k', Buffer.from('x'), 'application/json')).toBe(true);
    expect(aws.received.map((request) => request.headers['if-none-match'])).toEqual(['*']);
  });

  it('answers false, without retrying, when the key exists (412) or a concurrent conditional write won (409)', async () => {
    aws.answer(s3Error(412, 'PreconditionFailed'), s3Error(409, 'ConditionalRequestConflict'));

    expect(await objects().putNewObject('b', 'k', Buffer.from('x'), 'application/json')).toBe(false);
    expect(await objects().putNewObject('b', 'k', Buffer.from('x'), 'application/json')).toBe(false);
    expect(aws.received).toHaveLength(2);
  });

  it('retries a 500 and a 503 SlowDown and returns the third answer', async () => {
    aws.answer(s3Error(500, 'InternalError'), s3Error(503, 'SlowDown'), reply(200, 'third'));

    const bytes = await objects().getObject('b', 'k');

    expect(Buffer.from(bytes ?? []).toString()).toBe('third');
    expect(aws.received).toHaveLength(3);
  });

  it('gives up after 3 attempts that all fail with 503, as unavailable', async () => {
    aws.otherwise(s3Error(503, 'SlowDown'));

    await expect(objects().putObject('b', 'k', Buffer.from('x'), 'application/json')).rejects.toThrow(
      new ServiceUnavailableError('The snapshot store is unavailable'),
    );
    expect(aws.received).toHaveLength(3);
  });

  it('rejects with ServiceUnavailableError when the store never answers within the call budget', async () => {
    timeouts(20_000, 300);
    aws.otherwise(never);

    await expect(objects().getObject('b', 'k')).rejects.toThrow(
      new ServiceUnavailableError('The snapshot store did not answer in time'),
    );
    expect(aws.received).toHaveLength(1);
  });

  it('rejects with ServiceUnavailableError when the body of an object stops coming within the call budget', async () => {
    timeouts(20_000, 300);
    aws.otherwise(stalledBody);

    await expect(objects().getObject('b', 'k')).rejects.toThrow(
      new ServiceUnavailableError('The snapshot store did not answer in time'),
    );
  });

  it('cuts each attempt that gets no answer at the attempt timeout, 3 times, then is unavailable', async () => {
    timeouts(100, 20_000);
    aws.otherwise(never);

    await expect(objects().getObject('b', 'k')).rejects.toThrow(
      new ServiceUnavailableError('The snapshot store is unavailable'),
    );
    expect(aws.received).toHaveLength(3);
  });

  it('is unavailable when the connection is refused', async () => {
    const read = s3Objects(await refusedEndpoint()).getObject('b', 'k');

    await expect(read).rejects.toThrow(new ServiceUnavailableError('The snapshot store is unavailable'));
    await expect(read).rejects.toHaveProperty('cause.code', 'ECONNREFUSED');
  });
});

describe('SQS messages under the failure policy (the detection run queue)', () => {
  const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/detection-runs';
  const runs = (count: number): DetectionRun[] =>
    Array.from({ length: count }, (_, i) => ({
      orgId: 'acme',
      configId: 1,
      runId: 500 + i,
      source: 'DNS_TWIST',
      status: 'QUEUED',
      resultCount: 0,
      queuedAt: '2026-03-01T10:00:00.000Z',
      finishedAt: null,
    }));
  const queue = () => sqsRunQueue(sqsClient('detection run queue', aws.endpoint), QUEUE_URL);
  const sent = () =>
    aws.received.map((request) => JSON.parse(request.body.toString()) as { Entries: { Id: string }[] });

  beforeEach(() => {
    aws.otherwise(reply(200, JSON.stringify({ Successful: [], Failed: [] })));
  });

  it('sends 25 runs in 3 SendMessageBatch calls of 10, 10 and 5, each run its own message', async () => {
    await queue().send(runs(25));

    expect(aws.received.map((request) => request.headers['x-amz-target'])).toEqual(
      Array(3).fill('AmazonSQS.SendMessageBatch'),
    );
    expect(sent().map((body) => body.Entries.length)).toEqual([10, 10, 5]);
    expect(sent().flatMap((body) => body.Entries)).toEqual(
      runs(25).map((run) => ({ Id: String(run.runId), MessageBody: JSON.stringify(run) })),
    );
  });

  it('rejects naming every run SQS did not queue, and sends no further batch', async () => {
    aws.answer(
      reply(
        200,
        JSON.stringify({
          Successful: [],
          Failed: [
            { Id: '503', Code: 'InternalError', SenderFault: false },
            { Id: '507', Code: 'InternalError', SenderFault: false },
          ],
        }),
      ),
    );

    await expect(queue().send(runs(25))).rejects.toThrow('Detection runs not queued: 503, 507');
    expect(aws.received).toHaveLength(1);
  });

  it('retries throttling (RequestThrottled, a 403) and rejects with ServiceUnavailableError after 3 attempts', async () => {
    aws.otherwise(jsonError(403, 'com.amazonaws.sqs#RequestThrottled'));

    await expect(queue().send(runs(1))).rejects.toThrow(
      new ServiceUnavailableError('The detection run queue is unavailable'),
    );
    expect(aws.received).toHaveLength(3);
  });

  it('retries a 503 and sends the batch with the next attempt', async () => {
    aws.answer(jsonError(503, 'com.amazonaws.sqs#ServiceUnavailable'));

    await queue().send(runs(2));

    expect(aws.received).toHaveLength(2);
  });

  it('rejects a queue that does not exist with its error, without retrying', async () => {
    aws.otherwise(jsonError(400, 'com.amazonaws.sqs#QueueDoesNotExist'));

    await expect(queue().send(runs(1))).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
    expect(aws.received).toHaveLength(1);
  });
});

describe('GetSecretValue under the failure policy', () => {
  const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:CursorSecret-abc';
  const keys = () => secretCursorKeys(ARN, { endpoint: aws.endpoint });

  it('retries throttling and a 5xx and returns the secret string', async () => {
    aws.answer(
      jsonError(400, 'ThrottlingException'),
      jsonError(500, 'com.amazonaws.secretsmanager#InternalServiceError'),
      reply(200, JSON.stringify({ SecretString: 'key set' })),
    );

    expect(await keys()({ refresh: false })).toBe('key set');
    expect(aws.received).toHaveLength(3);
  });

  it('rejects a missing secret with its error, not as unavailable, and does not retry it', async () => {
    aws.answer(jsonError(400, 'ResourceNotFoundException'));

    const read = keys()({ refresh: false });

    await expect(read).rejects.toHaveProperty('cause.name', 'ResourceNotFoundException');
    await expect(read).rejects.not.toBeInstanceOf(ServiceUnavailableError);
    expect(aws.received).toHaveLength(1);
  });

  it('rejects with the ServiceUnavailableError (the 503) itself after 3 throttled attempts', async () => {
    aws.otherwise(jsonError(400, 'ThrottlingException'));

    await expect(keys()({ refresh: false })).rejects.toThrow(
      new ServiceUnavailableError('The cursor key store is unavailable'),
    );
    expect(aws.received).toHaveLength(3);
  });

  it('rejects with ServiceUnavailableError when Secrets Manager never answers within the call budget', async () => {
    timeouts(20_000, 300);
    aws.otherwise(never);

    await expect(keys()({ refresh: false })).rejects.toThrow(
      new ServiceUnavailableError('The cursor key store did not answer in time'),
    );
  });
});
