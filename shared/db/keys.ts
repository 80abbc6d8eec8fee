import { createHash } from 'node:crypto';
import { recordNumber } from '../domain/core/ids.ts';
import { counterPartitionOf, counterSlotOf } from '../domain/insights/counters.ts';
import type { BudgetName, ClaimName } from '../domain/lifecycle/store.ts';
import { ACTIVITY_INDEX, type ActivityIndex, ATTR, INDEX, type LiveIndex } from './table-layout.ts';

/**
 * Every key shape of the single table. Only repositories and the table definition import this
 * module. Free text (group names, asset content, check keys) is hashed into keys so that no
 * user input can exceed DynamoDB's key size limits or collide with a delimiter.
 */
const digest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');

export {
  ACTIVITY_INDEX,
  type ActivityIndex,
  ATTR,
  CHECK_INDEX,
  checkIndexPartition,
  EXPORT_INDEX,
  exportPartition,
  INDEX,
  type LiveIndex,
  VERDICT_LOG,
  verdictLogShard,
} from './table-layout.ts';

const GROUP_REMOVAL_SHARDS = 16;
const groupRemovalPk = (orgId: string): string =>
  `GROUP_REMOVAL#${createHash('sha256').update(orgId, 'utf8').digest().readUInt16BE(0) % GROUP_REMOVAL_SHARDS}`;

export type Key = { PK: string; SK: string };

/**
 * Every partition of the table, as the IAM pattern of its partition keys (`StringLike` on
 * `dynamodb:LeadingKeys`: `*` is any run of characters; a pattern without one is a single
 * partition). A function's role may write only the partitions its entry in `infra/routes.ts`
 * declares. No pattern matches another's keys: each prefix ends in `#`, so `ORG#*` does not match
 * `ORGANIZATION#…` (test/unit/db/partitions.test.ts checks every key built here).
 */
export const PARTITIONS = {
  /** What an organization's requests write: groups, their names and counter, asset identities. */
  organizationScoped: 'ORG#*',
  /** The organization itself (name, feature flags) and its brands: written by the operator only. */
  organization: 'ORGANIZATION#*',
  apiKey: 'KEY#*',
  user: 'USER#*',
  asset: 'ASSET#*',
  /** Unfinished group deletes: `GROUP_REMOVAL#<shard>`, and the one partition of those from before the shards. */
  groupRemoval: 'GROUP_REMOVAL*',
  checkEntry: 'CHECK#*',
  verdictLog: 'VERDICTS#*',
  /** Leases: which one of several runners does a singleton's work (the verdict publisher). */
  lease: 'LEASE#*',
  activity: 'ACTIVITY#*',
  claim: 'CLAIM#*',
  budget: 'BUDGET#*',
  /** Day counters: the metrics of organizations and of brands, and organizations' insight counters (`#INSIGHTS`). */
  metrics: 'METRICS#*',
  /** Every organization's webhooks, their per-organization counts and the event generator's position. */
  webhooks: 'WEBHOOKS',
  /** One partition per webhook: its deliveries, newest last. */
  webhookDelivery: 'WEBHOOKDLV#*',
  /** One partition per webhook: its deliveries not yet SUCCESS or FAILURE. */
  webhookOpen: 'WEBHOOKOPEN#*',
  /** Disputes of false positives, their one-per-requester markers and the service's allowlistings. */
  dispute: 'DISPUTE#*',
  /** Scans of submitted content, and the marks of the reports they filed. */
  scan: 'SCAN#*',
  /** A user's own profile (name, avatar): written by the user's requests, unlike `USER#`. */
  profile: 'PROFILE#*',
  /** Detections of one organization: configs, their runs and stream positions, findings, settings. */
  detection: 'DETECT#*',
  /** An organization's TAXII collections: their ids, their objects' versions by date added, submission statuses. */
  taxii: 'TAXII#*',
} as const;
export type TablePartition = (typeof PARTITIONS)[keyof typeof PARTITIONS];

const orgPk = (orgId: string) => `ORG#${orgId}`;
const organizationPk = (orgId: string) => `ORGANIZATION#${orgId}`;
/** Slugs are lower case, so `#S<k>` cannot be the end of an organization's or a brand's own partition. */
const metricsPk = (partition: string, shard: number) => {
  const index = counterPartitionOf(shard);
  return index === 0 ? partition : `${partition}#S${index}`;
};
/**
 * The sort key of a counter item of one period (`DAY#<day>`, `MONTH#<month>`) in a shard's slot:
 * slot 0 is the period's item as it was before slots; slot k sorts right after it (`DAY#<day>#k`),
 * before the next period, so one Query of a partition reads a range of periods with all their slots.
 */
const slotted = (sortKey: string, shard: number) => {
  const slot = counterSlotOf(shard);
  return slot === 0 ? sortKey : `${sortKey}#${slot}`;
};

/** Counter items of periods: the last sort key of a period's slots, and the period of an item's sort key. */
export const counterPeriods = {
  /** `SK BETWEEN first.SK AND counterPeriods.through(last)` covers every slot of both periods. */
  through: (last: Key): string => `${last.SK}#~`,
  /** The day or month of a counter item, whichever slot it is. */
  of: (sortKey: string): string => sortKey.split('#')[1] ?? '',
};

export const key = {
  apiKey: (hash: string): Key => ({ PK: `KEY#${hash}`, SK: 'KEY' }),
  org: (orgId: string): Key => ({ PK: organizationPk(orgId), SK: 'ORG' }),
  /** What the operator sets of an organization besides its name and flags (contact, services, thresholds). */
  orgSettings: (orgId: string): Key => ({ PK: organizationPk(orgId), SK: 'SETTINGS' }),
  profile: (userId: string): Key => ({ PK: `PROFILE#${userId}`, SK: 'PROFILE' }),
  memberships: { PK: (userId: string) => `USER#${userId}`, prefix: 'MEMBER#' },
  brand: (orgId: string, slug: string): Key => ({ PK: organizationPk(orgId), SK: `BRAND#${slug}` }),
  brands: { PK: organizationPk, prefix: 'BRAND#' },
  user: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'USER' }),
  membership: (userId: string, orgId: string): Key => ({ PK: `USER#${userId}`, SK: `MEMBER#${orgId}` }),
  group: (orgId: string, id: number): Key => ({ PK: orgPk(orgId), SK: `GROUP#${id}` }),
  groups: { PK: orgPk, prefix: 'GROUP#' },
  groupName: (orgId: string, name: string): Key => ({ PK: orgPk(orgId), SK: `GROUPNAME#${digest(name)}` }),
  groupCounter: (orgId: string): Key => ({ PK: orgPk(orgId), SK: 'COUNTER#GROUP' }),
  /**
   * A deleted group whose assets are still being ungrouped, in one of `GROUP_REMOVAL_SHARDS`
   * partitions by its organization, so no one partition takes every organization's deletes: the
   * sweeper reads each shard (and the single partition the removals of earlier versions are in),
   * a listing finds its organization's in its shard with a prefix of the sort key.
   */
  groupRemoval: (orgId: string, id: number): Key => ({ PK: groupRemovalPk(orgId), SK: `${orgPk(orgId)}#${id}` }),
  groupRemovals: {
    PK: (orgId: string) => groupRemovalPk(orgId),
    /** Every partition the sweeper reads: the shards, then the one of earlier versions. */
    partitions: [...Array.from({ length: GROUP_REMOVAL_SHARDS }, (_, i) => `GROUP_REMOVAL#${i}`), 'GROUP_REMOVAL'],
    legacyPK: 'GROUP_REMOVAL',
    prefix: (orgId: string) => `${orgPk(orgId)}#`,
  },
  asset: (id: number): Key => ({ PK: `ASSET#${id}`, SK: 'ASSET' }),
  /** One per live asset: the same content and type cannot be added twice to one organization. */
  assetIdentity: (orgId: string, type: string, identity: string): Key => ({
    PK: orgPk(orgId),
    SK: `ASSETKEY#${type}#${digest(identity)}`,
  }),
  /**
   * The marker of a bulk add, by the digest of its organization and body: which batch its assets
   * are staged under, and whether it is staging, committed or being undone. A retry of the same
   * body finds it.
   */
  bulkAdd: (orgId: string, request: string): Key => ({ PK: orgPk(orgId), SK: `BULKADD#${request}` }),
  /** An asset of a bulk add, staged (in no listing, count or check index) under its batch until the batch is published. */
  stagedAsset: (orgId: string, batch: string, index: number): Key => ({
    PK: orgPk(orgId),
    SK: `BULKSTAGED#${batch}#${String(index).padStart(4, '0')}`,
  }),
  stagedAssets: { PK: orgPk, prefix: (batch: string) => `BULKSTAGED#${batch}#` },
  /** The identity item of a stored asset, by the sort key the asset keeps (`identitySK`). */
  storedAssetIdentity: (orgId: string, identitySK: string): Key => ({ PK: orgPk(orgId), SK: identitySK }),
  /** The check index: one item per canonical content key, read by the asset check. */
  checkEntry: (checkKey: string): Key => ({ PK: `CHECK#${digest(checkKey)}`, SK: 'CHECK' }),
  /**
   * The verdict log: one partition per shard (`VERDICT_LOG.shards`, by the key's digest, so one
   * key's changes stay in one partition, in order) and UTC day (its start, a 13-digit epoch-ms
   * position), one item per change, sorted by version (time, key digest, per-key sequence).
   */
  verdictLog: (shard: number, bucket: string, version: string): Key => ({
    PK: `VERDICTS#${shard}#${bucket}`,
    SK: version,
  }),
  verdictLogPartition: (shard: number, bucket: string): string => `VERDICTS#${shard}#${bucket}`,
  /** The log as earlier versions wrote it: every change of one hour in one partition. Read until its items expire. */
  legacyVerdictLogPartition: (bucket: string): string => `VERDICTS#${bucket}`,
  /** A TAXII collection of an organization: one partition, its versions sorted by date added (`V#…`), its objects (`O#…`). */
  taxiiVersion: (orgId: string, collection: string, dateAdded: string, objectId: string): Key => ({
    PK: `TAXII#${orgId}#${collection}`,
    SK: `V#${dateAdded}#${objectId}`,
  }),
  taxiiObject: (orgId: string, collection: string, objectId: string): Key => ({
    PK: `TAXII#${orgId}#${collection}`,
    SK: `O#${objectId}`,
  }),
  taxiiCollectionPartition: (orgId: string, collection: string): string => `TAXII#${orgId}#${collection}`,
  /** An organization's collection ids, its submission statuses, and the submitted objects it accepted (by id and `modified`). */
  taxiiCollections: (orgId: string): Key => ({ PK: `TAXII#${orgId}`, SK: 'COLLECTIONS' }),
  taxiiStatus: (orgId: string, statusId: string): Key => ({ PK: `TAXII#${orgId}`, SK: `STATUS#${statusId}` }),
  taxiiSubmitted: (orgId: string, objectId: string, modified: string): Key => ({
    PK: `TAXII#${orgId}`,
    SK: `SUBMITTED#${objectId}#${modified}`,
  }),
  /** A lease: held by one runner at a time, until it expires. */
  lease: (name: string): Key => ({ PK: `LEASE#${name}`, SK: 'LEASE' }),
  checkEntryPrefix: 'CHECK#',
  /** The last applied state of one activity record (report, threat or takedown); one partition per record. */
  activity: (orgId: string, kind: string, id: string): Key => ({
    PK: `ACTIVITY#${orgId}#${kind}#${digest(id)}`,
    SK: 'ACTIVITY',
  }),
  /** Held by at most one record at a time, e.g. the pending proposal of one content in one organization. */
  claim: (name: string): Key => ({ PK: `CLAIM#${digest(name)}`, SK: 'CLAIM' }),
  /** The claim of a pending proposal, by the name earlier versions stored it under. */
  pendingClaim: ({ orgId, status, checkKey }: ClaimName): Key => key.claim(`pending#${orgId}#${status}#${checkKey}`),
  /** A use counter that expires (TTL) after its period, e.g. one organization's reviews of one day. */
  budget: (name: BudgetName): Key => ({ PK: `BUDGET#${digest(`reviews#${name.orgId}`)}`, SK: 'BUDGET' }),
  /**
   * Webhooks share one partition (at most 10 per organization), so the event generator reads
   * every subscription with one Query; the sort key puts an organization's together.
   */
  webhook: (orgId: string, id: string): Key => ({ PK: 'WEBHOOKS', SK: `HOOK#${orgId}#${id}` }),
  webhooks: { PK: 'WEBHOOKS', prefix: (orgId?: string) => (orgId === undefined ? 'HOOK#' : `HOOK#${orgId}#`) },
  webhookCount: (orgId: string): Key => ({ PK: 'WEBHOOKS', SK: `COUNT#${orgId}` }),
  webhookCursor: { PK: 'WEBHOOKS', SK: 'CURSOR' } as Key,
  /** What the event generator has recorded: a log position and the entries after it already turned into events. */
  webhookGenerator: { PK: 'WEBHOOKS', SK: 'GENERATOR' } as Key,
  /** A delivery sorts by the position of its change in the verdict log, then by its own id. */
  webhookDelivery: (hookId: string, sort: string): Key => ({ PK: `WEBHOOKDLV#${hookId}`, SK: sort }),
  webhookDeliveryPartition: (hookId: string): string => `WEBHOOKDLV#${hookId}`,
  webhookOpen: (hookId: string, sort: string): Key => ({ PK: `WEBHOOKOPEN#${hookId}`, SK: sort }),
  webhookOpenPartition: (hookId: string): string => `WEBHOOKOPEN#${hookId}`,
  /**
   * Pre-aggregated counters of one UTC day (`YYYY-MM-DD`) in one of `COUNTER_SHARDS` shards, each
   * its own partition, and in one of its `COUNTER_SLOTS` items of the day (`slotted`); a
   * partition's days sort chronologically. Shard 0 is the partition every record was counted in
   * before counters were sharded.
   */
  orgDay: (orgId: string, day: string, shard = 0): Key => ({
    PK: metricsPk(`METRICS#${orgId}`, shard),
    SK: slotted(`DAY#${day}`, shard),
  }),
  /** A dispute by its id (digits, so never a digest of the content partitions below). */
  dispute: (id: string): Key => ({ PK: `DISPUTE#${id}`, SK: 'DISPUTE' }),
  /** One per requester (an e-mail address, or an organization) and content: who disputed what. */
  disputeMarker: (checkKey: string, requester: string): Key => ({
    PK: `DISPUTE#${digest(checkKey)}`,
    SK: `BY#${digest(requester)}`,
  }),
  /** The service's own allowlisting of a content, made by upholding a dispute of it. */
  serviceAllowlisting: (checkKey: string): Key => ({ PK: `DISPUTE#${digest(checkKey)}`, SK: 'ALLOWLISTED' }),
  scan: (id: number): Key => ({ PK: `SCAN#${id}`, SK: 'SCAN' }),
  /** Held once a scan filed a report of a content for an organization, so it files one only once. */
  scanReport: (orgId: string, checkKey: string): Key => ({
    PK: `SCAN#${digest(`${orgId}\n${checkKey}`)}`,
    SK: 'REPORTED',
  }),
  detectionSettings: (orgId: string): Key => ({ PK: `DETECT#${orgId}`, SK: 'SETTINGS' }),
  detectionConfig: (orgId: string, id: number): Key => ({ PK: `DETECT#${orgId}`, SK: `CONFIG#${id}` }),
  detectionConfigs: { PK: (orgId: string) => `DETECT#${orgId}`, prefix: 'CONFIG#' },
  /** A config's history row: one per change, so automation can tell a customer's choice from a default. */
  detectionConfigHistory: (orgId: string, id: number, at: string): Key => ({
    PK: `DETECT#${orgId}`,
    SK: `CONFIGHIST#${id}#${at}`,
  }),
  /** Runs sort by the time they were queued. */
  detectionRun: (orgId: string, queuedAt: string, runId: number): Key => ({
    PK: `DETECT#${orgId}`,
    SK: `RUN#${queuedAt}#${runId}`,
  }),
  detectionRuns: { PK: (orgId: string) => `DETECT#${orgId}`, prefix: 'RUN#' },
  /** Detections sort by id (time-ordered, 16 digits), so the newest are read first. */
  /**
   * New detections of every organization, one partition per hour of their recording (under the
   * detections' own prefix, which every writer of detections may write): the webhook generator
   * reads it as it reads the verdict log. Organization ids never contain `#`.
   */
  detectionFeed: (bucket: string, position: string, orgId: string, id: number): Key => ({
    PK: `DETECT#FEED#${bucket}`,
    SK: `${position}#${orgId}#${id}`,
  }),
  detectionFeedPartition: (bucket: string): string => `DETECT#FEED#${bucket}`,
  detection: (orgId: string, id: number): Key => ({ PK: `DETECT#${orgId}`, SK: `DET#${String(id).padStart(16, '0')}` }),
  detections: { PK: (orgId: string) => `DETECT#${orgId}`, prefix: 'DET#' },
  /** Held by the one detection of an asset from a source. */
  detectionMarker: (orgId: string, source: string, assetId: number): Key => ({
    PK: `DETECT#${orgId}`,
    SK: `DETKEY#${source}#${assetId}`,
  }),
  detectionPosition: (orgId: string, configId: number, stream: string): Key => ({
    PK: `DETECT#${orgId}`,
    SK: `POS#${configId}#${digest(stream)}`,
  }),
  /**
   * The enabled configs of every organization under one schedule class or push source, for the
   * scheduler and the feeds: `@` is in no slug, so these never meet an organization's partition.
   */
  detectionListing: (slot: string, orgId: string, configId: number): Key => ({
    PK: `DETECT#@${slot}`,
    SK: `${orgId}#${configId}`,
  }),
  detectionListings: (slot: string) => `DETECT#@${slot}`,
  brandDay: (orgId: string, brandSlug: string, day: string, shard = 0): Key => ({
    PK: metricsPk(`METRICS#${orgId}#BRAND#${brandSlug}`, shard),
    SK: slotted(`DAY#${day}`, shard),
  }),
  /**
   * The insight counters of one organization day (breakdowns, histograms, open work), sharded like
   * `orgDay` but in partitions of their own, so reads of the metrics counters never carry them.
   */
  insightDay: (orgId: string, day: string, shard = 0): Key => ({
    PK: metricsPk(`METRICS#${orgId}#INSIGHTS`, shard),
    SK: slotted(`DAY#${day}`, shard),
  }),
  /**
   * The month rollup of an organization's insight day items (`YYYY-MM`) in the same shard: their
   * breakdown and histogram counters summed over the month, so a read of whole months meets one
   * item per month and shard whatever the number of records.
   */
  insightMonth: (orgId: string, month: string, shard = 0): Key => ({
    PK: metricsPk(`METRICS#${orgId}#INSIGHTS#MONTHS`, shard),
    SK: slotted(`MONTH#${month}`, shard),
  }),
  /**
   * One histogram item of an organization month in the same shard (`item`: the histogram and group,
   * `ttb3`): the buckets of that group, the organization's and its brands'. The month item counts
   * the groups, so a median reads the groups there and then the one item holding it, each of a size
   * bounded by the group's width, however many records the month counts.
   */
  insightHistograms: (orgId: string, item: string, month: string, shard = 0): Key => ({
    PK: metricsPk(`METRICS#${orgId}#INSIGHTS#H#${item}`, shard),
    SK: slotted(`MONTH#${month}`, shard),
  }),
  /**
   * The open-work gauges of an organization month in the same shard, by the day they were counted
   * on: apart from the month rollup, so a read of the gauges carries neither its breakdowns nor its
   * histograms, and the item holds at most a few gauges per day of the month however busy the
   * organization is.
   */
  insightGauges: (orgId: string, month: string, shard = 0): Key => ({
    PK: metricsPk(`METRICS#${orgId}#INSIGHTS#GAUGES`, shard),
    SK: slotted(`MONTH#${month}`, shard),
  }),
};

/**
 * Organization and brand items were first kept in the organization-scoped partition (`ORG#<id>`,
 * sort keys `ORG` and `BRAND#<slug>`), which routes write. `npm run admin -- migrate` moves each
 * to its key now (`key.org`, `key.brand`): the same sort key in the organization's own partition.
 */
export const legacyDirectory = {
  prefix: orgPk(''),
  relocated: (old: Key): Key => ({ PK: organizationPk(old.PK.slice(orgPk('').length)), SK: old.SK }),
};

const GROUP_NONE = 'NONE';

/** The live-index attributes of an asset; removing them all takes it out of every listing. */
export const liveKeys = (asset: {
  orgId: string;
  id: number;
  type: string;
  groupId: number | null;
  createdAt: string;
}) => {
  const group = asset.groupId === null ? GROUP_NONE : String(asset.groupId);
  return {
    [ATTR.liveSort]: `${asset.createdAt}#${String(asset.id).padStart(16, '0')}`,
    [ATTR.liveOrg]: orgPk(asset.orgId),
    [ATTR.liveType]: `${orgPk(asset.orgId)}#TYPE#${asset.type}`,
    [ATTR.liveGroup]: `${orgPk(asset.orgId)}#GROUP#${group}`,
    [ATTR.liveTypeGroup]: `${orgPk(asset.orgId)}#TYPE#${asset.type}#GROUP#${group}`,
  };
};

export const liveIndexFor = (filter: { type?: string; groupId?: number | 'ungrouped' }): LiveIndex => {
  if (filter.type !== undefined && filter.groupId !== undefined) return INDEX.byTypeGroup;
  if (filter.type !== undefined) return INDEX.byType;
  if (filter.groupId !== undefined) return INDEX.byGroup;
  return INDEX.byOrg;
};

export const livePartition = (orgId: string, filter: { type?: string; groupId?: number | 'ungrouped' }): string => {
  const group =
    filter.groupId === undefined ? undefined : filter.groupId === 'ungrouped' ? GROUP_NONE : String(filter.groupId);
  let partition = orgPk(orgId);
  if (filter.type !== undefined) partition += `#TYPE#${filter.type}`;
  if (group !== undefined) partition += `#GROUP#${group}`;
  return partition;
};

/** Records sort by the number they answer as (zero-padded), whatever id they were recorded under. */
const idSort = (kind: string, organization: string, id: string): string =>
  String(recordNumber(kind, organization, id)).padStart(16, '0');
/** Sort keys are bounded (1,024 bytes): long content sorts by its first characters, then by id. */
const contentSort = (content: string): string => content.toLowerCase().slice(0, 200);

/** The lifecycle partitions (by index) of one activity record, as listings read them. */
export type ActivityPartitions = {
  kind: 'report' | 'threat' | 'takedown';
  organization: string;
  id: string;
  createdAt: string;
  updatedAt: string;
  deleted: boolean;
  /** Reports still being written: in no listing yet. */
  incomplete?: boolean;
  /** Reports: whether a proposal awaits review, whether one was rejected. */
  pending?: boolean;
  rejected?: boolean;
  /** Threats: set while the threat blocks its content. */
  blockedAt?: string;
  /** Takedowns: whether it is IN_PROGRESS (what the stale-takedowns healthcheck lists, oldest first). */
  inProgress?: boolean;
  content?: string;
  assetType?: string;
  assetId?: number;
};

/**
 * The `list1` partition of the bulk adds not yet finished (staging, committed or being undone), by
 * the time their marker last moved: what the sweeper of interrupted writes reads.
 */
export const OPEN_BULK_ADDS = 'OPEN_BULK_ADDS';
export const openBulkAddKeys = (touchedAt: string, orgId: string, request: string): Record<string, string> => ({
  [ACTIVITY_INDEX.list1.partitionKey]: OPEN_BULK_ADDS,
  [ACTIVITY_INDEX.list1.sortKey]: `${touchedAt}#${orgPk(orgId)}#${request}`,
});

/** The `list1` partition of the reports still being written, by `createdAt`: what the sweeper of abandoned ones reads. */
export const INCOMPLETE_REPORTS = 'INCOMPLETE_REPORTS';

/**
 * The index attributes of an activity record: reports by `createdAt` (all, with a pending
 * proposal, with a rejected one, with both), blocking threats by id, `blockedAt`, content and
 * type, takedowns by `updatedAt` and `createdAt` (IN_PROGRESS ones also apart, by `createdAt`),
 * threats and takedowns by asset, and reports by
 * id in that same index. A deleted record is in none of them; a report still being written is in
 * none of the listings, only in one partition of its own, by `createdAt`, that no listing reads.
 */
export const activityIndexKeys = (record: ActivityPartitions): Record<string, string> => {
  if (record.deleted) return {};
  const org = orgPk(record.organization);
  const id = idSort(record.kind, record.organization, record.id);
  if (record.incomplete) {
    const { list1 } = ACTIVITY_INDEX;
    return record.kind === 'report'
      ? { [list1.partitionKey]: INCOMPLETE_REPORTS, [list1.sortKey]: `${record.createdAt}#${org}#${id}` }
      : {};
  }
  const attributes: Record<string, string> = {};
  const put = (index: ActivityIndex, partition: string, sort: string) => {
    attributes[index.partitionKey] = partition;
    attributes[index.sortKey] = sort;
  };
  const { list1, list2, list3, list4, byAsset } = ACTIVITY_INDEX;
  if (record.kind === 'report') {
    const sort = `${record.createdAt}#${id}`;
    put(list1, `${org}#REPORTS`, sort);
    if (record.pending) put(list2, `${org}#REPORTS#PENDING`, sort);
    if (record.rejected) put(list3, `${org}#REPORTS#REJECTED`, sort);
    if (record.pending && record.rejected) put(list4, `${org}#REPORTS#PENDING#REJECTED`, sort);
    // Found by its id alone for its public page, whose address names no organization.
    put(byAsset, reportPartition(String(recordNumber(record.kind, record.organization, record.id))), org);
    return attributes;
  }
  if (record.content !== undefined) attributes.search = record.content.toLowerCase();
  if (record.assetId !== undefined) put(byAsset, `ASSETREF#${record.assetId}`, `${record.updatedAt}#${org}#${id}`);
  if (record.kind === 'threat' && record.blockedAt !== undefined) {
    const partition = `${org}#THREATS`;
    put(list1, partition, id);
    put(list2, partition, `${record.blockedAt}#${id}`);
    put(list3, partition, `${contentSort(record.content ?? '')}\u0000${id}`);
    put(list4, partition, `${record.assetType ?? ''}#${id}`);
  }
  if (record.kind === 'takedown') {
    const partition = `${org}#TAKEDOWNS`;
    put(list1, partition, `${record.updatedAt}#${id}`);
    put(list2, partition, `${record.createdAt}#${id}`);
    if (record.inProgress) put(list3, `${partition}#IN_PROGRESS`, `${record.createdAt}#${id}`);
  }
  return attributes;
};

/** The partition of a listing in its index. */
export const listPartition = (orgId: string, listing: 'REPORTS' | 'THREATS' | 'TAKEDOWNS', suffix = ''): string =>
  `${orgPk(orgId)}#${listing}${suffix}`;
export const assetPartition = (assetId: number): string => `ASSETREF#${assetId}`;
/** Where a report sits in the by-asset index, by the number it answers as. */
export const reportPartition = (id: string): string => `REPORTREF#${id}`;
