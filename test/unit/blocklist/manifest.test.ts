import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { manifestIssuer } from '../../../shared/domain/blocklist/manifest.ts';
import {
  type JwkSet,
  newSigningKey,
  rotateKeys,
  SIGNING_KEYS,
  type SigningKeySet,
} from '../../../shared/domain/blocklist/signing-keys.ts';

const CONTENT = { algoVersion: 1, version: '1795255200000', artifacts: [] };

describe('the manifest issuer', () => {
  it('publishes the key set before the first manifest a key in it signs', async () => {
    let now = Date.now();
    let keys: SigningKeySet = { keys: [await newSigningKey(now)] };
    const seen: string[] = [];
    const issue = manifestIssuer({
      keys: async () => keys,
      publish: async (set: JwkSet) => {
        seen.push(`published ${set.keys.map((key) => key.kid).join(',')}`);
      },
      now: () => now,
    });
    const signed = async () => {
      seen.push(`signed by ${decodeProtectedHeader((await issue(CONTENT)) as string).kid}`);
    };

    await signed();
    await signed();
    keys = (await rotateKeys(keys, now)).set;
    now += SIGNING_KEYS.leadMs;
    await signed();

    const [first, next] = keys.keys.map((key) => key.kid);
    expect(seen).toEqual([
      `published ${first}`,
      `signed by ${first}`,
      `signed by ${first}`,
      `published ${first},${next}`,
      `signed by ${next}`,
    ]);
  });

  it('signs nothing while the key set is empty (a stack before its first rotate-key)', async () => {
    const issue = manifestIssuer({ keys: async () => ({ keys: [] }) });

    expect(await issue(CONTENT)).toBeUndefined();
  });
});
