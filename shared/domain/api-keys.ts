import { createHash, randomBytes } from 'node:crypto';
import { ServiceUnavailableError } from '../errors.ts';
import type { Budget, KeyRateLimits, RateClass } from './rate-limits.ts';

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

export type KeyResolver = (key: string) => Promise<ResolvedKey | undefined>;

/**
 * Resolves keys through a per-container cache: a revoked or newly created key takes effect
 * within `ttlMs`. Misses are cached too, so a flood of bad keys costs one read per key per TTL.
 * While the store is unavailable, a key seen before keeps its last known record, so the asset
 * check goes on answering through a table outage.
 */
export const cachedKeyResolver = (
  store: Pick<ApiKeyStore, 'findByHash'>,
  { ttlMs = 60_000, maxEntries = 10_000, now = Date.now } = {},
): KeyResolver => {
  const cache = new Map<string, { record: ResolvedKey | undefined; expires: number }>();
  return async (key) => {
    const hash = hashApiKey(key);
    const hit = cache.get(hash);
    if (hit && hit.expires > now()) return hit.record;
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
};
