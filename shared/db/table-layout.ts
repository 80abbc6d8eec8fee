/* The table's attributes, its indexes and the shard counts of its sharded partitions: what the key builders in `keys.ts` and the table definition share. */

export const ATTR = {
  pk: 'PK',
  sk: 'SK',
  ttl: 'expiresAt',
  liveSort: 'liveSK',
  liveOrg: 'liveOrg',
  liveType: 'liveType',
  liveGroup: 'liveGroup',
  liveTypeGroup: 'liveTypeGroup',
} as const;

/** Sparse indexes holding live (not soft-deleted) assets only, newest first by `liveSK`. */
export const INDEX = {
  byOrg: { name: 'liveByOrg', partitionKey: ATTR.liveOrg },
  byType: { name: 'liveByType', partitionKey: ATTR.liveType },
  byGroup: { name: 'liveByGroup', partitionKey: ATTR.liveGroup },
  byTypeGroup: { name: 'liveByTypeGroup', partitionKey: ATTR.liveTypeGroup },
} as const;
export type LiveIndex = (typeof INDEX)[keyof typeof INDEX];

/**
 * Sparse indexes over activity records, shared by the lifecycle listings (each record kind puts
 * its own partitions in them; see `activityIndexKeys`), plus one by asset identity.
 */
export const ACTIVITY_INDEX = {
  list1: { name: 'list1', partitionKey: 'list1PK', sortKey: 'list1SK' },
  list2: { name: 'list2', partitionKey: 'list2PK', sortKey: 'list2SK' },
  list3: { name: 'list3', partitionKey: 'list3PK', sortKey: 'list3SK' },
  list4: { name: 'list4', partitionKey: 'list4PK', sortKey: 'list4SK' },
  byAsset: { name: 'byAsset', partitionKey: 'assetPK', sortKey: 'assetSK' },
} as const;
export type ActivityIndex = (typeof ACTIVITY_INDEX)[keyof typeof ACTIVITY_INDEX];

/**
 * The verdict export: every check-index entry that has a type, by type, status and UTC month of
 * its last change, sorted by that change's version (`lastChange`). Only `verdictChange` sets it.
 */
export const EXPORT_INDEX = {
  name: 'verdictsByMonth',
  partitionKey: 'exportPK',
  sortKey: 'lastChange',
  shards: 8,
} as const;
/**
 * An export partition: a type, status and month in one of `EXPORT_INDEX.shards` shards by the
 * entry's key digest. Each change moves its entry in the index (a delete and a put, about 2 WCU),
 * so 1,000 changes/s of one type and status would take 2,000 WCU/s of one partition unsharded; over
 * 8 shards it is ~250 each, half of the half-limit. Entries written before the index was sharded
 * keep the unsharded partition (`shard` undefined) until their next change; readers read it too.
 */
export const exportPartition = (type: string, status: string, month: string, shard?: number): string =>
  shard === undefined ? `${type}#${status}#${month}` : `${type}#${status}#${month}#${shard}`;

/**
 * Every check-index entry, sparse (nothing else sets `checkIdxPK`), in `CHECK_INDEX.shards`
 * partitions by its key's digest, sorted by its last change: what a snapshot rebuild reads
 * instead of scanning the table. Sharded so that no index partition takes the whole stream of
 * verdict changes: each change moves its entry's sort key (a delete and a put in the index), so
 * 5,000 changes/s over 32 shards is ~313 WCU each. Only `verdictChange` sets it.
 */
export const CHECK_INDEX = {
  name: 'checkEntries',
  partitionKey: 'checkIdxPK',
  sortKey: 'lastChange',
  shards: 32,
} as const;
export const checkIndexPartition = (shard: number): string => `CHECKIDX#${shard}`;

/**
 * The verdict log's layout. Every change is one transactional put (2 WCU for an item under 1 KB)
 * into the partition of its key's shard and day, so 1,000 changes/s put ~63 WCU/s on each of 32
 * partitions, and 5,000 changes/s ~313, within half a partition's 1,000. The one reader that
 * reads every shard each quarter second is the publisher; check containers read its deltas in S3.
 */
export const VERDICT_LOG = { shards: 32, bucketMs: 86_400_000 } as const;
/** The shard of a check key's changes, by the hex digest the log's versions carry. */
export const verdictLogShard = (keyHash: string): number =>
  Number.parseInt(keyHash.slice(0, 4), 16) % VERDICT_LOG.shards;
