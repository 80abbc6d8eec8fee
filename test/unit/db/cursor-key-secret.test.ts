import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { secretCursorKeys } from '../../../shared/db/cursor-key-secret.ts';

const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:CursorSecret-abc';
const KEY_SET = '{"current":"1","1":"key-one"}';
const secrets = mockClient(SecretsManagerClient);

describe('the cursor key set from Secrets Manager', () => {
  beforeEach(() => {
    secrets.reset();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: KEY_SET });
  });

  it('is fetched once and then answered from the cache', async () => {
    const keys = secretCursorKeys(ARN, { client: new SecretsManagerClient({}) });

    expect(await keys({ refresh: false })).toBe(KEY_SET);
    expect(await keys({ refresh: false })).toBe(KEY_SET);
    expect(secrets.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input)).toEqual([{ SecretId: ARN }]);
  });

  it('bypasses the cache for a refresh at most once a minute', async () => {
    let now = 1_000_000;
    const keys = secretCursorKeys(ARN, { client: new SecretsManagerClient({}), now: () => now });
    await keys({ refresh: false });

    await keys({ refresh: true });
    await keys({ refresh: true });
    now += 60_000;
    await keys({ refresh: true });

    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(3);
  });
});
