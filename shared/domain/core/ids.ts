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

/** Ids the lifecycle keeps as numbers: a positive safe integer in canonical digits ("7", never "007"). */
const NUMERIC_ID = /^[1-9]\d{0,15}$/;
const isNumericId = (id: string): boolean => NUMERIC_ID.test(id) && Number.isSafeInteger(Number(id));

/**
 * The number a report, threat (proposal) or takedown answers as its `id`. Records the API makes
 * are keyed by their number already; one an ingest or a fixture keyed by text gets a stable number
 * of its kind, organization and text, so every writer, retry and rerun derives the same one with
 * nothing to allocate (below 2^48, apart from the API's time-ordered ids).
 */
export const recordNumber = (kind: string, organization: string, id: string): number =>
  isNumericId(id) ? Number(id) : stableId(`record:${kind}:${organization}:${id}`);

/** The text id an ingest or a fixture gave a record (its idempotency key), or null when the id is a number. */
export const externalIdOf = (id: string): string | null => (isNumericId(id) ? null : id);
