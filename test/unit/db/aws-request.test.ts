import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { FinalizeRequestMiddleware } from '@smithy/types';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AwsServiceError } from '../../../shared/db/aws-request.ts';
import { secretCursorKeys } from '../../../shared/db/cursor-key-secret.ts';
import { s3Objects } from '../../../shared/db/s3.ts';
import { ServiceUnavailableError } from '../../../shared/errors.ts';
import {
  jsonError,
  type LoopbackAws,
  loopbackAws,
  never,
  type Received,
  refusedEndpoint,
  reply,
  s3Error,
} from '../../fixtures/loopback-aws.ts';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session',
};
const REGION = 'eu-west-1';
const ARN = 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:CursorSecret-abc';
const KEY = 'lists/seal (1)/a b+c*.json';
let aws: LoopbackAws;

/**
 * The SDK client's request reduced to the one our requests are: without its invocation id, attempt
 * counter and user agent headers, and without the `x-id` query parameter it adds to S3 operations.
 */
const sameRequest =
  <Input extends object, Output extends object>(): FinalizeRequestMiddleware<Input, Output> =>
  (next) =>
  (args) => {
    const request = args.request as { headers: Record<string, string>; query: Record<string, string> };
    for (const name of ['amz-sdk-invocation-id', 'amz-sdk-request', 'x-amz-user-agent']) delete request.headers[name];
    delete request.query['x-id'];
    return next(args);
  };
const SAME_REQUEST = { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'sameRequest' } as const;
/** The SDK's request and ours, in that order. */
const sdkAndOurs = (): [Received, Received] => {
  const [sdk, ours] = aws.received;
  if (!sdk || !ours) throw new Error(`expected two requests, received ${aws.received.length}`);
  return [sdk, ours];
};
const sdkConfig = () => ({
  region: REGION,
  endpoint: aws.endpoint,
  credentials,
  maxAttempts: 1,
});

/** Path-style, as our requests to an endpoint are, and without the checksums S3 does not require. */
const s3Config = () => ({
  ...sdkConfig(),
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED' as const,
  responseChecksumValidation: 'WHEN_REQUIRED' as const,
});

const policyEnv = ['STORE_ATTEMPT_TIMEOUT_MS', 'STORE_CALL_BUDGET_MS'] as const;
const savedPolicy = Object.fromEntries(policyEnv.map((name) => [name, process.env[name]]));
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
  vi.useRealTimers();
  for (const name of policyEnv) {
    if (savedPolicy[name] === undefined) delete process.env[name];
    else process.env[name] = savedPolicy[name];
  }
});
afterAll(() => aws.close());

const objects = () => s3Objects({ endpoint: aws.endpoint, credentials, region: REGION });

describe('signed requests, against the SDK clients as the oracle', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-01T12:34:56Z') });
  });

  it('signs a GET of an object exactly as the S3 client does, at the same path', async () => {
    const s3 = new S3Client(s3Config());
    s3.middlewareStack.addRelativeTo(sameRequest(), SAME_REQUEST);

    await s3.send(new GetObjectCommand({ Bucket: 'lists-bucket', Key: KEY }));
    await objects().getObject('lists-bucket', KEY);

    const [sdk, ours] = sdkAndOurs();
    expect(ours.url).toBe(sdk.url);
    expect(ours.url).toBe('/lists-bucket/lists/seal%20%281%29/a%20b%2Bc%2A.json');
    expect(ours.headers.authorization).toBe(sdk.headers.authorization);
    expect(ours.headers.authorization).toContain(`/${REGION}/s3/aws4_request`);
  });

  it('signs a PUT of an object exactly as the S3 client does, with the same body and content type', async () => {
    const s3 = new S3Client(s3Config());
    s3.middlewareStack.addRelativeTo(sameRequest(), SAME_REQUEST);
    const body = Buffer.from('{"source":"seal"}');

    await s3.send(
      new PutObjectCommand({ Bucket: 'lists-bucket', Key: KEY, Body: body, ContentType: 'application/json' }),
    );
    await objects().putObject('lists-bucket', KEY, body, 'application/json');

    const [sdk, ours] = sdkAndOurs();
    expect({ url: ours.url, body: ours.body.toString(), type: ours.headers['content-type'] }).toEqual({
      url: sdk.url,
      body: sdk.body.toString(),
      type: sdk.headers['content-type'],
    });
    expect(ours.headers.authorization).toBe(sdk.headers.authorization);
  });

  it('signs GetSecretValue exactly as the Secrets Manager client does, with the same target and body', async () => {
    aws.otherwise(reply(200, JSON.stringify({ SecretString: 'keys' })));
    const secrets = new SecretsManagerClient(sdkConfig());
    secrets.middlewareStack.addRelativeTo(sameRequest(), SAME_REQUEST);

    await secrets.send(new GetSecretValueCommand({ SecretId: ARN }));
    await secretCursorKeys(ARN, { target: { endpoint: aws.endpoint, credentials, region: REGION } })({
      refresh: false,
    });

    const [sdk, ours] = sdkAndOurs();
    expect({ url: ours.url, body: ours.body.toString(), target: ours.headers['x-amz-target'] }).toEqual({
      url: '/',
      body: sdk.body.toString(),
      target: 'secretsmanager.GetSecretValue',
    });
    expect(ours.headers['content-type']).toBe(sdk.headers['content-type']);
    expect(ours.headers.authorization).toBe(sdk.headers.authorization);
    expect(ours.headers.authorization).toContain(`/${REGION}/secretsmanager/aws4_request`);
  });
});

describe('S3 objects under the failure policy', () => {
  it('returns the bytes of an object', async () => {
    aws.answer(reply(200, 'snapshot bytes'));

    const bytes = await objects().getObject('b', 'lists/seal/latest.json');

    expect(Buffer.from(bytes ?? []).toString()).toBe('snapshot bytes');
  });

  it('has no object for NoSuchKey, nor for a 404 that names no error', async () => {
    aws.answer(s3Error(404, 'NoSuchKey'), reply(404));

    expect(await objects().getObject('b', 'missing.json')).toBeUndefined();
    expect(await objects().getObject('b', 'missing.json')).toBeUndefined();
    expect(aws.received).toHaveLength(2);
  });

  it('rejects a missing bucket or a denied read with the service error, without retrying', async () => {
    aws.answer(s3Error(404, 'NoSuchBucket'), s3Error(403, 'AccessDenied'));

    await expect(objects().getObject('b', 'k')).rejects.toThrow(new AwsServiceError('NoSuchBucket', 404));
    await expect(objects().getObject('b', 'k')).rejects.toThrow(new AwsServiceError('AccessDenied', 403));
    expect(aws.received).toHaveLength(2);
  });

  it('retries a 500 and a 503 SlowDown and returns the third answer', async () => {
    aws.answer(s3Error(500, 'InternalError'), s3Error(503, 'SlowDown'), reply(200, 'third'));

    const bytes = await objects().getObject('b', 'k');

    expect(Buffer.from(bytes ?? []).toString()).toBe('third');
    expect(aws.received).toHaveLength(3);
  });

  it('gives up after 3 attempts that all fail with 5xx, as unavailable', async () => {
    aws.otherwise(s3Error(500, 'InternalError'));

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

  it('cuts each attempt that gets no answer at the attempt timeout, 3 times, then is unavailable', async () => {
    timeouts(100, 20_000);
    aws.otherwise(never);

    await expect(objects().getObject('b', 'k')).rejects.toThrow(
      new ServiceUnavailableError('The snapshot store is unavailable'),
    );
    expect(aws.received).toHaveLength(3);
  });

  it('is unavailable when the connection is refused', async () => {
    const store = s3Objects({ endpoint: await refusedEndpoint(), credentials, region: REGION });

    const read = store.getObject('b', 'k');

    await expect(read).rejects.toThrow(new ServiceUnavailableError('The snapshot store is unavailable'));
    await expect(read).rejects.toHaveProperty('cause.code', 'ECONNREFUSED');
  });
});

describe('GetSecretValue under the failure policy', () => {
  const keys = () => secretCursorKeys(ARN, { target: { endpoint: aws.endpoint, credentials } });

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

    await expect(read).rejects.toThrow('ResourceNotFoundException (HTTP 400)');
    await expect(read).rejects.toHaveProperty('cause', new AwsServiceError('ResourceNotFoundException', 400));
    expect(aws.received).toHaveLength(1);
  });

  it('rejects with ServiceUnavailableError (the 503) when Secrets Manager never answers', async () => {
    timeouts(20_000, 300);
    aws.otherwise(never);

    await expect(keys()({ refresh: false })).rejects.toThrow(
      new ServiceUnavailableError('The cursor key store did not answer in time'),
    );
  });
});
