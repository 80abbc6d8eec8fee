import { describe, expect, it } from 'vitest';
import {
  type ApiKeyRecord,
  cachedKeyResolver,
  generateApiKey,
  hashApiKey,
  KEY_GUESSES_MESSAGE,
} from '../../../shared/domain/account/api-keys.ts';
import { tokenBuckets } from '../../../shared/domain/account/rate-limits.ts';
import { ServiceUnavailableError, TooManyRequestsError } from '../../../shared/errors.ts';

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

describe('failed key lookups per source address', () => {
  const ATTACKER = '203.0.113.7';
  const OTHER = '198.51.100.9';
  const setup = (budget = { perSecond: 1, burst: 3 }) => {
    let now = 1_000;
    const { store, reads } = countingStore(
      new Map([
        [hashApiKey('good-1'), record],
        [hashApiKey('good-2'), record],
        [hashApiKey('revoked'), { ...record, revoked: true }],
      ]),
    );
    const resolve = cachedKeyResolver(store, {
      now: () => now,
      guesses: { buckets: tokenBuckets({ now: () => now }), budget },
    });
    return { resolve, reads, advance: (ms: number) => (now += ms) };
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  it('refuses an unknown key with 429 and Retry-After once the burst is spent, without reading it', async () => {
    const { resolve, reads } = setup();
    for (const guess of ['g-1', 'g-2', 'g-3']) expect(await resolve(guess, ATTACKER)).toBeUndefined();

    const refused = await refusal(resolve('g-4', ATTACKER));

    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused).toMatchObject({ message: KEY_GUESSES_MESSAGE, retryAfterSeconds: 1 });
    expect(reads).toHaveLength(3);
  });

  it('takes the token before the read, so keys sent at once get no more reads than the burst', async () => {
    const { resolve, reads } = setup();

    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => refusal(resolve(`guess-${i}`, ATTACKER))));

    expect(answers.filter((answer) => answer instanceof TooManyRequestsError)).toHaveLength(47);
    expect(reads).toHaveLength(3);
  });

  it('counts revoked keys and repeated unknown keys as failures, but not good keys', async () => {
    const { resolve } = setup({ perSecond: 1, burst: 2 });
    await resolve('good-1', ATTACKER);
    await resolve('good-2', ATTACKER);
    await resolve('revoked', ATTACKER);
    await resolve('g-1', ATTACKER);

    const refused = await refusal(resolve('g-1', ATTACKER));

    expect(refused).toBeInstanceOf(TooManyRequestsError);
  });

  it('keeps answering a key known good from the spent address, and any key from another address', async () => {
    const { resolve } = setup();
    await resolve('good-1', ATTACKER);
    for (const guess of ['g-1', 'g-2', 'g-3']) await resolve(guess, ATTACKER);

    const known = await resolve('good-1', ATTACKER);
    const elsewhere = await resolve('good-2', OTHER);
    const guessElsewhere = await resolve('g-9', OTHER);

    expect(known).toMatchObject({ orgId: 'acme' });
    expect(elsewhere).toMatchObject({ orgId: 'acme' });
    expect(guessElsewhere).toBeUndefined();
  });

  it('refills one lookup a second after the burst', async () => {
    const { resolve, reads, advance } = setup();
    for (const guess of ['g-1', 'g-2', 'g-3']) await resolve(guess, ATTACKER);
    advance(1_000);

    const first = await refusal(resolve('g-4', ATTACKER));
    const second = await refusal(resolve('g-5', ATTACKER));

    expect(first).toBeUndefined();
    expect(second).toBeInstanceOf(TooManyRequestsError);
    expect(reads).toHaveLength(4);
  });
});
