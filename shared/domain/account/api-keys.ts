import { createHash, randomBytes } from 'node:crypto';
import { ServiceUnavailableError, TooManyRequestsError } from '../../errors.ts';
import {
  type Budget,
  type KeyRateLimits,
  type RateClass,
  retryAfterSeconds,
  type TokenBuckets,
} from './rate-limits.ts';

export type Scope = 'read' | 'write';
export const SCOPES: readonly Scope[] = ['read', 'write'];

/** `rateLimits`: the key's own budgets per route class, over the stage defaults. */
export type ApiKeyRecord = (
  | { kind: 'organization'; orgId: string; scopes: Scope[]; revoked: boolean }
  | { kind: 'user'; userId: string; scopes: Scope[]; revoked: boolean }
) & { rateLimits?: KeyRateLimits };

/** A key found by its plaintext: its record and the digest it is stored under, which identifies it in memory. */
export type ResolvedKey = ApiKeyRecord & { hash: string };

/** API keys, stored and found by the digest of the key (`hashApiKey`). */
export interface ApiKeyStore {
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** Stores a key by its hash; returns false when that hash is already stored (nothing changes). */
  put(hash: string, record: ApiKeyRecord): Promise<boolean>;
  /** Marks a stored key revoked; returns false when no key has that hash. */
  revoke(hash: string): Promise<boolean>;
  /** Sets the key's own budget for one route class; returns false when no key has that hash. */
  setRateLimit(hash: string, rateClass: RateClass, budget: Budget): Promise<boolean>;
}

/** Keys are stored only as this digest; the plaintext is shown once, at creation. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export const generateApiKey = (): string => `aps_${randomBytes(24).toString('base64url')}`;

/**
 * Finds a presented key's record; `source` is the address it came from (`requestContext.http.sourceIp`),
 * against whose failed-key budget an unknown key counts.
 */
export type KeyResolver = (key: string, source?: string) => Promise<ResolvedKey | undefined>;

/** The budget of failed key lookups per source address, and the container's buckets it is kept in. */
export type KeyGuessLimit = { buckets: TokenBuckets; budget: Budget };

export const KEY_GUESSES_MESSAGE = 'Too many requests with an unknown API key from this address';

const usable = (record: ResolvedKey | undefined): record is ResolvedKey => record !== undefined && !record.revoked;

/**
 * Resolves keys through a per-container cache: a revoked or newly created key takes effect
 * within `ttlMs`. Misses are cached too, so a flood of bad keys costs one read per key per TTL.
 * While the store is unavailable, a key seen before keeps its last known record, so the asset
 * check goes on answering through a table outage.
 *
 * With `guesses`, every key not known good in this container takes a token from its source
 * address's bucket before it is looked up, and gets it back when it turns out usable: once an
 * address has spent its budget on unknown or revoked keys, its next unknown key is a 429 that
 * costs no read, while keys already known good (cached) answer as ever, from that address too.
 */
export const cachedKeyResolver = (
  store: Pick<ApiKeyStore, 'findByHash'>,
  {
    ttlMs = 60_000,
    maxEntries = 10_000,
    now = Date.now,
    guesses,
  }: { ttlMs?: number; maxEntries?: number; now?: () => number; guesses?: KeyGuessLimit } = {},
): KeyResolver => {
  const cache = new Map<string, { record: ResolvedKey | undefined; expires: number }>();
  const lookup = async (hash: string, hit: { record: ResolvedKey | undefined } | undefined) => {
    let record: ResolvedKey | undefined;
    try {
      const found = await store.findByHash(hash);
      record = found && { ...found, hash };
    } catch (error) {
      if (hit && error instanceof ServiceUnavailableError) return hit.record;
      throw error;
    }
    if (cache.size >= maxEntries) cache.clear();
    cache.set(hash, { record, expires: now() + ttlMs });
    return record;
  };
  return async (key, source) => {
    const hash = hashApiKey(key);
    const hit = cache.get(hash);
    const fresh = hit !== undefined && hit.expires > now();
    if (fresh && usable(hit.record)) return hit.record;
    const budgeted = guesses && source !== undefined ? { ...guesses, source } : undefined;
    if (budgeted) {
      const take = budgeted.buckets.take(budgeted.source, budgeted.budget);
      if (!take.allowed) {
        const { budget } = budgeted;
        throw new TooManyRequestsError(KEY_GUESSES_MESSAGE, {
          retryAfterSeconds: retryAfterSeconds(take, budget),
          bucket: {
            limit: budget.burst,
            remaining: 0,
            resetSeconds: Math.ceil((budget.burst - take.tokens) / budget.perSecond),
          },
        });
      }
    }
    let record: ResolvedKey | undefined;
    try {
      record = fresh ? hit.record : await lookup(hash, hit);
    } catch (error) {
      budgeted?.buckets.giveBack(budgeted.source);
      throw error;
    }
    if (budgeted && usable(record)) budgeted.buckets.giveBack(budgeted.source);
    return record;
  };
};
