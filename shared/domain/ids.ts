import { createHash, randomInt } from 'node:crypto';

/**
 * A stable number for something named by text (an organization's slug, a brand, a canonical
 * content key): the first 48 bits of its SHA-256, so the same name has the same id on every
 * table and every reseed, with no counter to allocate from. Below 2^48, these never meet the
 * time-ordered ids of `newRecordId` (above 10^15).
 */
export const stableId = (name: string): number =>
  Number.parseInt(createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 12), 16);

/** The content identity a proposal, threat or takedown is about: its canonical check-index key. */
export const assetIdOf = (checkKey: string): number => stableId(`asset:${checkKey}`);

/** Time-ordered ids for new records (reports, proposals, reviews, takedowns); collisions are caught by the write's condition. */
export const newRecordId = (now: number = Date.now()): number => now * 1000 + randomInt(1000);

/**
 * `count` distinct ids of one moment (at most 1,000): a report and its proposals. Drawn one by one,
 * 101 ids of the same millisecond would repeat a suffix almost always (the birthday bound).
 */
export const newRecordIds = (count: number, now: number = Date.now()): number[] => {
  const suffixes = new Set<number>();
  while (suffixes.size < count) suffixes.add(randomInt(1000));
  return [...suffixes].map((suffix) => now * 1000 + suffix);
};
