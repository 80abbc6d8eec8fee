import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CheckIndexStore, IndexEntry } from '../domain/check/index.ts';
import { batchGetAll } from './batch.ts';
import { ATTR, key } from './keys.ts';
import { entryCounts } from './verdict-log.ts';

type Cached = { entry: IndexEntry | undefined; expires: number };

const PROJECTION = {
  expression: '#pk, #allow, #block, #watch',
  names: { '#pk': ATTR.pk, '#allow': 'allow', '#block': 'block', '#watch': 'watch' },
};

/** An item whose counters all dropped to zero (every asset removed, every threat withdrawn) is no entry. */
const entryOf = (item: Record<string, unknown>): IndexEntry | undefined => {
  const entry = entryCounts(item);
  return entry.allow > 0 || entry.block > 0 ? entry : undefined;
};

type CheckIndexOptions = { ttlMs?: number; maxEntries?: number; now?: () => number };

/**
 * The check index: the items `key.checkEntry(k)` kept by the transactions that allowlist assets
 * (`allow`) and approve threats (`block`, `watch`). One BatchGetItem reads every candidate key
 * missing from a per-container cache that remembers found and missing keys for `ttlMs`, so an
 * allowlisting or a threat takes effect everywhere within that time.
 */
export const checkIndexRepository = (
  db: DynamoDBDocumentClient,
  table: string,
  { ttlMs = 10_000, maxEntries = 50_000, now = Date.now }: CheckIndexOptions = {},
): CheckIndexStore => {
  const cache = new Map<string, Cached>();
  const remember = (checkKey: string, entry: IndexEntry | undefined, expires: number) => {
    cache.delete(checkKey);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(checkKey, { entry, expires });
  };

  const read = async (keys: readonly string[], answers: (IndexEntry | undefined)[], misses: number[]) => {
    const byPk = new Map<string, string>();
    const requested = misses.map((index) => {
      const checkKey = keys[index] as string;
      const itemKey = key.checkEntry(checkKey);
      byPk.set(itemKey.PK, checkKey);
      return itemKey;
    });
    const found = new Map<string, IndexEntry | undefined>();
    for (const item of await batchGetAll(db, table, requested, PROJECTION)) {
      const checkKey = byPk.get(item[ATTR.pk] as string);
      if (checkKey !== undefined) found.set(checkKey, entryOf(item));
    }
    const expires = now() + ttlMs;
    for (const index of misses) {
      const checkKey = keys[index] as string;
      const entry = found.get(checkKey);
      answers[index] = entry;
      remember(checkKey, entry, expires);
    }
    return answers;
  };

  return {
    lookup(keys) {
      const time = now();
      const answers: (IndexEntry | undefined)[] = new Array(keys.length);
      let misses: number[] | undefined;
      for (let i = 0; i < keys.length; i++) {
        const hit = cache.get(keys[i] as string);
        if (hit !== undefined && hit.expires > time) {
          answers[i] = hit.entry;
        } else {
          misses ??= [];
          misses.push(i);
        }
      }
      return misses === undefined ? answers : read(keys, answers, misses);
    },
  };
};
