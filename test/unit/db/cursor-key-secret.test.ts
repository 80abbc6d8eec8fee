import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secretCursorKeys } from '../../../shared/db/cursor-key-secret.ts';
import { type LoopbackAws, loopbackAws, reply } from '../../fixtures/loopback-aws.ts';

const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:CursorSecret-abc';
const KEY_SET = '{"current":"1","1":"key-one"}';
let secrets: LoopbackAws;

beforeAll(async () => {
  secrets = await loopbackAws();
});
afterAll(() => secrets.close());

describe('the cursor key set from Secrets Manager', () => {
  beforeEach(() => {
    secrets.reset();
    secrets.otherwise(reply(200, JSON.stringify({ ARN, Name: 'CursorSecret', SecretString: KEY_SET })));
  });

  it('is fetched once and then answered from the cache', async () => {
    const keys = secretCursorKeys(ARN, { endpoint: secrets.endpoint });

    expect(await keys({ refresh: false })).toBe(KEY_SET);
    expect(await keys({ refresh: false })).toBe(KEY_SET);
    expect(secrets.received.map((request) => JSON.parse(request.body.toString()))).toEqual([{ SecretId: ARN }]);
  });

  it('is fetched again once its maximum age has passed', async () => {
    const keys = secretCursorKeys(ARN, { endpoint: secrets.endpoint, maxAgeSeconds: 0 });

    await keys({ refresh: false });
    await keys({ refresh: false });

    expect(secrets.received).toHaveLength(2);
  });

  it('bypasses the cache for a refresh at most once a minute', async () => {
    let now = 1_000_000;
    const keys = secretCursorKeys(ARN, { endpoint: secrets.endpoint, now: () => now });
    await keys({ refresh: false });

    await keys({ refresh: true });
    await keys({ refresh: true });
    now += 60_000;
    await keys({ refresh: true });

    expect(secrets.received).toHaveLength(3);
  });

  it('rejects a secret that holds no string', async () => {
    secrets.otherwise(reply(200, JSON.stringify({ ARN, SecretBinary: 'AAEC' })));

    await expect(secretCursorKeys(ARN, { endpoint: secrets.endpoint })({ refresh: false })).rejects.toThrow(
      `Secret ${ARN} holds no string`,
    );
  });
});
