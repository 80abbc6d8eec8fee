import { describe, expect, it } from 'vitest';
import { type ApiKeyRecord, cachedKeyResolver, generateApiKey, hashApiKey } from '../../../shared/domain/api-keys.ts';
import { ServiceUnavailableError } from '../../../shared/errors.ts';

const record: ApiKeyRecord = { kind: 'organization', orgId: 'acme', scopes: ['read'], revoked: false };

const countingStore = (records: Map<string, ApiKeyRecord>) => {
  const reads: string[] = [];
  return {
    reads,
    store: {
      findByHash: async (hash: string) => {
        reads.push(hash);
        return records.get(hash);
      },
    },
  };
};

describe('API key resolution', () => {
  it('looks keys up by their SHA-256 digest, never by the plaintext, and answers the digest with the record', async () => {
    const { store, reads } = countingStore(new Map([[hashApiKey('k-1'), record]]));

    const found = await cachedKeyResolver(store)('k-1');

    expect(found).toEqual({ ...record, hash: hashApiKey('k-1') });
    expect(reads).toEqual([hashApiKey('k-1')]);
    expect(reads[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads each key at most once per TTL, hits and misses alike, and again after it expires', async () => {
    let now = 1_000;
    const { store, reads } = countingStore(new Map([[hashApiKey('k-1'), record]]));
    const resolve = cachedKeyResolver(store, { ttlMs: 60_000, now: () => now });

    await resolve('k-1');
    await resolve('k-1');
    await resolve('unknown');
    await resolve('unknown');
    now += 60_001;
    await resolve('k-1');

    expect(reads).toHaveLength(3);
  });

  it('keeps the last known record of a key while the store is unavailable, and fails for keys never seen', async () => {
    let now = 1_000;
    let down = false;
    const store = {
      findByHash: async (hash: string) => {
        if (down) throw new ServiceUnavailableError('The data store is unavailable');
        return hash === hashApiKey('k-1') ? record : undefined;
      },
    };
    const resolve = cachedKeyResolver(store, { ttlMs: 60_000, now: () => now });
    await resolve('k-1');
    down = true;
    now += 60_001;

    const known = await resolve('k-1');
    const unseen = resolve('k-2');

    expect(known).toEqual({ ...record, hash: hashApiKey('k-1') });
    await expect(unseen).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('generates distinct keys long enough to resist guessing', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));

    expect(keys.size).toBe(100);
    for (const key of keys) expect(key.length).toBeGreaterThanOrEqual(36);
  });
});
