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

/** The organization flag that spreads its new records' counts over `COUNTER_SHARDS` shards. */
export const SHARDED_COUNTERS_FLAG = 'sharded-counters';
