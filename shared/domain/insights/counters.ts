import { createHash } from 'node:crypto';
import type { AssetType } from '../allowlist/asset-types.ts';

/** Counter attributes of a day item. Threats are counted per asset type: `threats_URL`, `threats_TWITTER`, … */
export const COUNTER = {
  reports: 'reports',
  watchlisted: 'watchlisted',
  takedownsFiled: 'takedownsFiled',
  takedownsCompleted: 'takedownsCompleted',
} as const;

export const THREAT_PREFIX = 'threats_';
export const threatCounter = (type: AssetType): string => `${THREAT_PREFIX}${type}`;

/** Detections recorded on the day (organization and brand day items); not in `total`, so no activity to the metrics' series. */
export const DETECTIONS = 'detections';

/** Sum of a day item's counters, kept beside them so "not all zero" is one filter; not itself a counter. */
export const TOTAL = 'total';

/**
 * Day items of a busy organization (and of each of its brands) are split over this many shards,
 * each in its own partition, so its stream of changes does not take one partition's whole write
 * capacity. A record is counted in one shard, chosen once (`counterShardOf`); every other
 * organization counts in shard 0 alone, so a read of its metrics meets one item per day.
 */
export const COUNTER_SHARDS = 8;

/**
 * Counter items of one day (or month) in each shard's partition for an organization with sharded
 * counters: every transaction that counts a record writes that record's items, so two transactions
 * writing one item at once conflict (TransactionConflict) and one is retried. A transaction holds
 * its items for its latency, ~10–20 ms: one item serializes at most 1 s / 20 ms = 50 transactions
 * a second, and stays within half of that, 25 a second, when on average at most 0.5 other
 * transactions are in flight on it as one arrives. One organization's 1,000 changes a second over
 * the K = `COUNTER_SHARDS` × slots items of a day put 1,000 / K a second on each, ± its square root
 * from how the records' digests fall: 10 slots (K = 80) give 12.5 ± 3.5, so even a second's
 * busiest item (12.5 + 3σ ≈ 23) stays within 25; 5 slots (K = 40, 25 on the average item) would
 * not. A read sums a day's slots in each partition's one Query.
 */
export const COUNTER_SLOTS = 10;

/** The organization flag that spreads its new records' counts over `COUNTER_SHARDS` shards and their `COUNTER_SLOTS` items. */
export const SHARDED_COUNTERS_FLAG = 'sharded-counters';

/**
 * The counter shard of a new record of an organization with sharded counters, by the digest of its
 * id: a number below `COUNTER_SHARDS` × `COUNTER_SLOTS` naming its partition
 * (`counterPartitionOf`) and its item of a day there (`counterSlotOf`). The record keeps it, so its
 * every later change (and a retry of any of them) meets the same items; its partition is the one
 * the same digest chose before counters had slots.
 */
export const spreadCounterOf = (id: string): number => {
  const digest = createHash('sha256').update(id, 'utf8').digest();
  return (digest.readUInt32BE(0) % COUNTER_SHARDS) + COUNTER_SHARDS * (digest.readUInt32BE(4) % COUNTER_SLOTS);
};

/** The partition of a counter shard: shards below `COUNTER_SHARDS`, stored before slots, are their own. */
export const counterPartitionOf = (shard: number): number => shard % COUNTER_SHARDS;
/** The item of a day (or month) a counter shard counts in within its partition; 0 is the item of the layout before slots. */
export const counterSlotOf = (shard: number): number => Math.floor(shard / COUNTER_SHARDS);
