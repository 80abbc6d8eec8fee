import { createHash, randomInt, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AssetStatus, AssetType } from '../domain/allowlist/asset-types.ts';
import {
  type AddOutcome,
  type Asset,
  type AssetChanges,
  type AssetFilter,
  type AssetPage,
  type AssetStore,
  newAsset,
  type PreparedAsset,
} from '../domain/allowlist/assets.ts';
import { mapConcurrently } from '../domain/core/concurrency.ts';
import { NotFoundError, ServiceUnavailableError } from '../errors.ts';
import { logger } from '../logger.ts';
import { batchGetAll, queryPages } from './batch.ts';
import {
  type Change,
  changeWriter,
  claim,
  MAX_ITEMS,
  packUnits,
  record,
  refuse,
  retry,
  verdicts,
  type Write,
} from './change-set.ts';
import {
  ACTIVITY_INDEX,
  ATTR,
  key,
  type LiveIndex,
  liveIndexFor,
  liveKeys,
  livePartition,
  OPEN_BULK_ADDS,
  openBulkAddKeys,
} from './keys.ts';
import { decodePosition } from './position.ts';
import type { VerdictDelta, VerdictOrigin } from './verdict-log.ts';

type AssetItem = Asset & {
  version: number;
  identitySK: string;
  checkKey?: string;
  deletedAt?: string;
  [ATTR.liveSort]?: string;
};

const MAX_ATTEMPTS = 12;
/** Transactions of one bulk add in flight at once: they share group and check-index items, so more only conflict. */
const CHUNK_CONCURRENCY = 4;
/** Query pages one list request may read before it returns what it has (with a cursor). */
const MAX_PAGES = 4;
const FILTERED_PAGE_SIZE = 500;

/** Time-ordered, collision-checked ids: no hot counter item, and safe integers until the 23rd century. */
const originOf = (asset: Asset): VerdictOrigin => ({ orgId: asset.orgId, assetId: asset.id, content: asset.content });
const newAssetId = (): number => Date.now() * 1000 + randomInt(1000);

/** Search is case-insensitive: the stored text and every query are lower-cased here, and only here. */
const searchable = (text: string): string => text.toLowerCase();
const searchText = (a: { content: string; name?: string; description?: string | null }) =>
  searchable([a.content, a.name ?? '', a.description ?? ''].join('\n'));

type Position = Record<string, string>;

/** A list position is the index key of the next asset to read; callers see it only as text. */
const encodePosition = (position: Record<string, unknown>): string => JSON.stringify(position);

const decodeLivePosition = (index: LiveIndex, text: string): Position =>
  decodePosition(text, [ATTR.pk, ATTR.sk, index.partitionKey, ATTR.liveSort]) as Position;

const toAsset = (item: Record<string, unknown>): Asset => {
  const asset: Asset = {
    id: item.id as number,
    orgId: item.orgId as string,
    content: item.content as string,
    type: item.type as AssetType,
    status: item.status as AssetStatus,
    description: (item.description as string | null | undefined) ?? null,
    groupId: (item.groupId as number | null | undefined) ?? null,
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  };
  if (typeof item.name === 'string') asset.name = item.name;
  return asset;
};

const changed = (current: Asset, changes: AssetChanges): Asset => ({
  ...current,
  ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
  updatedAt: new Date().toISOString(),
});

const groupId = (item: AssetItem): number | null => item.groupId ?? null;

/**
 * A bulk add's marker: its assets are being staged (invisible: in no listing, count or check
 * index), are committed (the commit point: each is published, never undone), or are being undone.
 */
type BulkState = 'staging' | 'committed' | 'aborting';
type BulkMarker = { orgId: string; request: string; batch: string; state: BulkState; touchedAt: string };
/** An asset a bulk add staged: what its publication writes. */
type Staged = { index: number; asset: Asset; identitySK: string; checkKey?: string };
/** Why a change of a bulk add is retried: an identity held, a group gone, an id taken, an identity already published or released. */
type BulkRetry = `identity:${number}` | `group:${number}` | `asset:${number}` | `done:${number}`;

/** Staged items outlive their batch by this long before TTL removes them; nothing reads a finished batch's. */
const STAGED_TTL_S = 7 * 86_400;
/** A bulk add of one body in one organization: what a retry of the same request finds its marker by. */
const requestDigest = (orgId: string, inputs: readonly PreparedAsset[]): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        orgId,
        inputs.map((input) => [
          input.type,
          input.identity,
          input.content,
          input.name ?? null,
          input.description ?? null,
          input.groupId ?? null,
          input.status ?? null,
          input.createdAt ?? null,
        ]),
      ]),
    )
    .digest('base64url');

type Chunk = { start: number; end: number };

/** Why a change of an asset is retried: what another writer moved since it was read. */
type Moved = 'asset' | 'identity' | 'oldGroup' | 'oldRemoval';
/** Why an input of a bulk add is retried: its id taken, its identity held, its group gone (by input position or group id). */
type AddRetry = `asset:${number}` | `identity:${number}` | `group:${number}`;

export const assetRepository = (db: DynamoDBDocumentClient, TableName: string): AssetStore => {
  const read = async (id: number): Promise<AssetItem | undefined> => {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.asset(id), ConsistentRead: true }));
    return Item as AssetItem | undefined;
  };
  const live = (item: AssetItem | undefined): item is AssetItem => item !== undefined && item.deletedAt === undefined;
  const readLive = async (id: number): Promise<AssetItem> => {
    const item = await read(id);
    if (!live(item)) throw new NotFoundError(`Asset with ID ${id} not found`);
    return item;
  };
  const groupGone = (id: number) => new NotFoundError(`Group with ID ${id} not found`);

  const changes = changeWriter(db, TableName);
  const groupCount = (orgId: string, id: number, delta: number): Write => ({
    Update: {
      Key: key.group(orgId, id),
      UpdateExpression: 'ADD assetCount :delta',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':delta': delta },
    },
  });
  /** An asset leaves a deleted group whose ungrouping is unfinished: one fewer left to ungroup. */
  const removalCount = (orgId: string, id: number): Write => ({
    Update: {
      Key: key.groupRemoval(orgId, id),
      UpdateExpression: 'ADD remaining :minus',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':minus': -1 },
    },
  });
  /**
   * What leaving group `id` changes: its `assetCount`, or, once the group is deleted (its condition
   * failed before), the count of assets its removal has still to ungroup; nothing once both are gone.
   */
  const leaveGroup = <R>(orgId: string, id: number | null, retried: ReadonlySet<Moved>): Change<R, Moved>[] => {
    if (id === null) return [];
    if (!retried.has('oldGroup')) return [record(groupCount(orgId, id, -1), retry('oldGroup'))];
    if (!retried.has('oldRemoval')) return [record(removalCount(orgId, id), retry('oldRemoval'))];
    return [];
  };
  /** Writes `next` over the asset version `current` was read at, keeping it in the live indexes. */
  const replaceLive = (current: AssetItem, next: Asset): Write => {
    const keys = liveKeys(next);
    return {
      Update: {
        Key: key.asset(next.id),
        UpdateExpression:
          'SET description = :description, groupId = :groupId, updatedAt = :updatedAt, ' +
          '#search = :search, #lg = :lg, #ltg = :ltg, version = version + :one' +
          (next.name === undefined ? ' REMOVE #name' : ', #name = :name'),
        ConditionExpression: 'version = :version AND attribute_exists(#live)',
        ExpressionAttributeNames: {
          '#name': 'name',
          '#search': 'search',
          '#lg': ATTR.liveGroup,
          '#ltg': ATTR.liveTypeGroup,
          '#live': ATTR.liveSort,
        },
        ExpressionAttributeValues: {
          ...(next.name === undefined ? {} : { ':name': next.name }),
          ':description': next.description,
          ':groupId': next.groupId,
          ':updatedAt': next.updatedAt,
          ':search': searchText(next),
          ':lg': keys[ATTR.liveGroup],
          ':ltg': keys[ATTR.liveTypeGroup],
          ':one': 1,
          ':version': current.version,
        },
      },
    };
  };
  /** Marks the asset version `current` was read at deleted, taking it out of every live index. */
  const markDeleted = (current: AssetItem): Write => {
    const now = new Date().toISOString();
    return {
      Update: {
        Key: key.asset(current.id),
        UpdateExpression:
          'SET deletedAt = :now, updatedAt = :now, version = version + :one REMOVE #ls, #lo, #lt, #lg, #ltg',
        ConditionExpression: 'version = :version AND attribute_exists(#ls)',
        ExpressionAttributeNames: {
          '#ls': ATTR.liveSort,
          '#lo': ATTR.liveOrg,
          '#lt': ATTR.liveType,
          '#lg': ATTR.liveGroup,
          '#ltg': ATTR.liveTypeGroup,
        },
        ExpressionAttributeValues: { ':now': now, ':one': 1, ':version': current.version },
      },
    };
  };

  /** Everything inputs `[start, end)` write in one transaction; inputs whose identity or group was refused are left out. */
  const chunkChanges = (
    orgId: string,
    inputs: readonly PreparedAsset[],
    start: number,
    end: number,
    retried: ReadonlySet<AddRetry>,
    idOf: (index: number) => number,
  ) => {
    const written = new Map<number, Asset>();
    const set: Change<never, AddRetry>[] = [];
    const groupDeltas = new Map<number, number>();
    const deltas: VerdictDelta[] = [];
    for (let index = start; index < end; index++) {
      const input = inputs[index] as PreparedAsset;
      const group = input.groupId ?? null;
      if (retried.has(`identity:${index}`) || (group !== null && retried.has(`group:${group}`))) continue;
      const asset = newAsset(orgId, input, idOf(index), new Date().toISOString());
      const identity = key.assetIdentity(orgId, asset.type, input.identity);
      const checkKey = asset.status === 'ALLOWED' ? input.checkKey : undefined;
      const item = { ...asset, entity: 'ASSET', version: 1, identitySK: identity.SK, checkKey };
      set.push(
        claim(
          key.asset(asset.id),
          { ...item, search: searchText(asset), ...liveKeys(asset) },
          retry(`asset:${index}` as const),
        ),
        claim(identity, { entity: 'ASSET_IDENTITY', assetId: asset.id }, retry(`identity:${index}` as const)),
      );
      if (group !== null) groupDeltas.set(group, (groupDeltas.get(group) ?? 0) + 1);
      if (checkKey !== undefined) deltas.push({ checkKey, type: asset.type, allow: 1, origins: [originOf(asset)] });
      written.set(index, asset);
    }
    for (const [group, delta] of groupDeltas) {
      set.push(record(groupCount(orgId, group, delta), retry(`group:${group}` as const)));
    }
    if (deltas.length > 0) set.push(verdicts(deltas));
    return { set, written };
  };

  /** One transaction per chunk; identities already taken, and groups gone meanwhile, drop out and the rest retries. */
  const addChunk = async (
    orgId: string,
    inputs: readonly PreparedAsset[],
    { start, end }: Chunk,
    requestBase: number,
  ) => {
    let refused: ReadonlySet<AddRetry> = new Set();
    let written = new Map<number, Asset>();
    let base = requestBase;
    const indexes = Array.from({ length: end - start }, (_, i) => start + i);
    await changes.commit(
      (retried: ReadonlySet<AddRetry>) => {
        // Ids are unique within the request; one taken by another request gets a fresh base on the retry.
        if (indexes.some((index) => retried.has(`asset:${index}`))) base = newAssetId();
        refused = retried;
        const built = chunkChanges(orgId, inputs, start, end, retried, (index) => base + index);
        written = built.written;
        return built.set;
      },
      { maxAttempts: MAX_ATTEMPTS + indexes.length },
    );
    return indexes.map((index): AddOutcome => {
      const asset = written.get(index);
      if (asset) return { created: asset };
      return { failed: refused.has(`identity:${index}`) ? 'exists' : 'group-gone' };
    });
  };

  /** Key condition (and `query` filter) of one live-index partition, newest first, optionally below `before`. */
  const partitionQuery = (partitionKey: string, partition: string, query?: string, before?: string) => ({
    KeyConditionExpression: before === undefined ? '#pk = :pk' : '#pk = :pk AND #ls < :before',
    ...(query === undefined ? {} : { FilterExpression: 'contains(#search, :query)' }),
    ExpressionAttributeNames: {
      '#pk': partitionKey,
      ...(before === undefined ? {} : { '#ls': ATTR.liveSort }),
      ...(query === undefined ? {} : { '#search': 'search' }),
    },
    ExpressionAttributeValues: {
      ':pk': partition,
      ...(before === undefined ? {} : { ':before': before }),
      ...(query === undefined ? {} : { ':query': query }),
    },
  });

  /** Groups of the organization deleted but not yet fully ungrouped. */
  const removedGroups = async (orgId: string): Promise<number[]> => {
    const ids: number[] = [];
    for await (const items of queryPages(db, {
      TableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': key.groupRemovals.PK(orgId), ':prefix': key.groupRemovals.prefix(orgId) },
      ProjectionExpression: 'groupId',
    })) {
      ids.push(...items.map((item) => item.groupId as number));
    }
    return ids;
  };

  /**
   * Ungrouped assets include those of deleted groups whose removal has not reached them yet: the
   * ungrouped partition and each such group's partition are read side by side and merged, newest
   * first. The position is the sort key to continue below; every partition has been read down to
   * it, so nothing is skipped or repeated.
   */
  const listUngrouped = async (
    orgId: string,
    filter: AssetFilter,
    limit: number,
    position: string | undefined,
  ): Promise<AssetPage> => {
    const index = liveIndexFor(filter);
    const before = position === undefined ? undefined : decodeLivePosition(index, position)[ATTR.liveSort];
    const query = filter.query === undefined ? undefined : searchable(filter.query) || undefined;
    const partitions = [
      livePartition(orgId, filter),
      ...(await removedGroups(orgId)).map((groupId) => livePartition(orgId, { ...filter, groupId })),
    ];
    const reads = await Promise.all(
      partitions.map((partition) =>
        db.send(
          new QueryCommand({
            TableName,
            IndexName: index.name,
            ScanIndexForward: false,
            Limit: query === undefined ? limit : Math.max(limit, FILTERED_PAGE_SIZE),
            ...partitionQuery(index.partitionKey, partition, query, before),
          }),
        ),
      ),
    );
    // Each partition with more to read has been read down to its last evaluated key; the highest of
    // those is as far as all of them are known.
    let frontier: string | undefined;
    for (const read of reads) {
      const last = read.LastEvaluatedKey?.[ATTR.liveSort] as string | undefined;
      if (last !== undefined && (frontier === undefined || last > frontier)) frontier = last;
    }
    const sortKey = (item: Record<string, unknown>) => item[ATTR.liveSort] as string;
    const known = reads
      .flatMap((read) => read.Items ?? [])
      .filter((item) => frontier === undefined || sortKey(item) >= frontier)
      .sort((a, b) => (sortKey(a) < sortKey(b) ? 1 : -1));
    const ungrouped = (item: Record<string, unknown>): Asset => ({ ...toAsset(item), groupId: null });
    if (known.length > limit) {
      const taken = known.slice(0, limit);
      const last = sortKey(taken[limit - 1] as Record<string, unknown>);
      return { assets: taken.map(ungrouped), position: encodePosition({ [ATTR.liveSort]: last }) };
    }
    const assets = known.map(ungrouped);
    return frontier === undefined ? { assets } : { assets, position: encodePosition({ [ATTR.liveSort]: frontier }) };
  };

  /**
   * A bulk add of more than one transaction, all or nothing: (1) its marker is opened (or, for a
   * retry of the same body, found) under the digest of the organization and the body; (2) every
   * asset whose group exists is staged under the marker's batch: a staged item, and its identity
   * claimed for the batch (so no other request adds it meanwhile); nothing of this is in a listing,
   * a group count or the check index. (3) One conditional update of the marker commits the batch:
   * the commit point. (4) Each transaction of the publication then makes some assets live with
   * their group counts and check-index entries, so counts and the check always agree with what is
   * listed; an identity still claimed for the batch is what says an asset is not yet published, so
   * no asset is published twice. (5) The marker is deleted. A request interrupted before (3) leaves
   * nothing visible, and the sweeper (`resumeBulkAdds`) releases its claims once it is abandoned;
   * one interrupted after (3) is published by the sweeper, or by a retry of the same body, which
   * also takes up a staging left unfinished.
   */
  const bulk = (() => {
    const markerKey = (orgId: string, request: string) => key.bulkAdd(orgId, request);

    /** Opens the marker, or touches a staging one (a retry takes it up); answers the marker as it now is. */
    const open = async (orgId: string, request: string): Promise<BulkMarker> => {
      const touchedAt = new Date().toISOString();
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName,
            Key: markerKey(orgId, request),
            UpdateExpression:
              'SET #entity = :entity, #org = :org, #request = :request, #touched = :now, #pk1 = :pk1, #sk1 = :sk1, ' +
              '#batch = if_not_exists(#batch, :batch), #state = if_not_exists(#state, :staging)',
            ConditionExpression: 'attribute_not_exists(PK) OR #state = :staging',
            ExpressionAttributeNames: {
              '#entity': 'entity',
              '#org': 'orgId',
              '#request': 'request',
              '#touched': 'touchedAt',
              '#batch': 'batch',
              '#state': 'state',
              '#pk1': ACTIVITY_INDEX.list1.partitionKey,
              '#sk1': ACTIVITY_INDEX.list1.sortKey,
            },
            ExpressionAttributeValues: {
              ':entity': 'BULK_ADD',
              ':org': orgId,
              ':request': request,
              ':now': touchedAt,
              ':pk1': OPEN_BULK_ADDS,
              ':sk1': openBulkAddKeys(touchedAt, orgId, request)[ACTIVITY_INDEX.list1.sortKey],
              ':batch': randomUUID(),
              ':staging': 'staging',
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes as BulkMarker;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const found = await readMarker(orgId, request);
        if (found?.state === 'committed') return found;
        throw undoing();
      }
    };
    const undoing = () =>
      new ServiceUnavailableError('An interrupted attempt of this request is being undone; try again shortly');
    const readMarker = async (orgId: string, request: string) => {
      const { Item } = await db.send(
        new GetCommand({ TableName, Key: markerKey(orgId, request), ConsistentRead: true }),
      );
      return Item as BulkMarker | undefined;
    };
    /** Moves the marker from `from` (at `touchedAt`, when given) to `to`; false when it had moved on. */
    const move = async (marker: BulkMarker, from: BulkState, to: BulkState, touchedAt?: string): Promise<boolean> => {
      const now = new Date().toISOString();
      try {
        await db.send(
          new UpdateCommand({
            TableName,
            Key: markerKey(marker.orgId, marker.request),
            UpdateExpression: 'SET #state = :to, #touched = :now, #sk1 = :sk1',
            ConditionExpression: `#batch = :batch AND #state = :from${touchedAt === undefined ? '' : ' AND #touched = :touched'}`,
            ExpressionAttributeNames: {
              '#state': 'state',
              '#batch': 'batch',
              '#touched': 'touchedAt',
              '#sk1': ACTIVITY_INDEX.list1.sortKey,
            },
            ExpressionAttributeValues: {
              ':to': to,
              ':from': from,
              ':now': now,
              ':sk1': openBulkAddKeys(now, marker.orgId, marker.request)[ACTIVITY_INDEX.list1.sortKey],
              ':batch': marker.batch,
              ...(touchedAt === undefined ? {} : { ':touched': touchedAt }),
            },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    };
    const close = (marker: BulkMarker) =>
      db.send(
        new DeleteCommand({
          TableName,
          Key: markerKey(marker.orgId, marker.request),
          ConditionExpression: '#batch = :batch',
          ExpressionAttributeNames: { '#batch': 'batch' },
          ExpressionAttributeValues: { ':batch': marker.batch },
        }),
      );
    const readStaged = async (marker: BulkMarker): Promise<Staged[]> => {
      const staged: Staged[] = [];
      for await (const items of queryPages(db, {
        TableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: {
          ':pk': key.stagedAssets.PK(marker.orgId),
          ':prefix': key.stagedAssets.prefix(marker.batch),
        },
        ConsistentRead: true,
      })) {
        staged.push(...(items as Staged[]));
      }
      return staged;
    };

    /** Stages inputs `[start, end)` but those whose identity is held or whose group is gone. */
    const stagingChanges = (
      orgId: string,
      inputs: readonly PreparedAsset[],
      { start, end }: Chunk,
      skip: (index: number) => boolean,
      batch: string,
      ids: { base: number; now: string },
    ) => {
      const set: Change<never, BulkRetry>[] = [];
      const staged = new Map<number, Staged>();
      const expiresAt = Math.floor(Date.now() / 1000) + STAGED_TTL_S;
      for (let index = start; index < end; index++) {
        if (skip(index)) continue;
        const input = inputs[index] as PreparedAsset;
        const asset = newAsset(orgId, input, ids.base + index, ids.now);
        const identity = key.assetIdentity(orgId, asset.type, input.identity);
        const entry: Staged = {
          index,
          asset,
          identitySK: identity.SK,
          ...(asset.status === 'ALLOWED' && input.checkKey !== undefined ? { checkKey: input.checkKey } : {}),
        };
        set.push(
          record({
            Put: {
              Item: {
                ...key.stagedAsset(orgId, batch, index),
                entity: 'STAGED_ASSET',
                ...entry,
                [ATTR.ttl]: expiresAt,
              },
            },
          }),
          record(
            {
              Put: {
                Item: { ...identity, entity: 'ASSET_IDENTITY', assetId: asset.id, pendingBatch: batch },
                ConditionExpression: 'attribute_not_exists(PK) OR pendingBatch = :batch',
                ExpressionAttributeValues: { ':batch': batch },
              },
            },
            retry(`identity:${index}` as const),
          ),
        );
        staged.set(index, entry);
      }
      return { set, staged };
    };

    /** The groups of `ids` that exist, read once: staging transactions share no item, so they never conflict. */
    const existingGroups = async (orgId: string, ids: readonly number[]): Promise<Set<number>> => {
      const found = await batchGetAll(
        db,
        TableName,
        ids.map((id) => key.group(orgId, id)),
        { expression: '#id', names: { '#id': 'id' } },
        { consistent: true },
      );
      return new Set(found.map((item) => item.id as number));
    };

    const stage = async (orgId: string, inputs: readonly PreparedAsset[], batch: string) => {
      const ids = { base: newAssetId(), now: new Date().toISOString() };
      const named = [...new Set(inputs.flatMap((input) => (typeof input.groupId === 'number' ? [input.groupId] : [])))];
      const groups = named.length > 0 ? await existingGroups(orgId, named) : new Set<number>();
      const groupGone = (index: number) => {
        const group = inputs[index]?.groupId;
        return typeof group === 'number' && !groups.has(group);
      };
      const chunks = packUnits(
        inputs.length,
        (start, end) => stagingChanges(orgId, inputs, { start, end }, () => false, batch, ids).set,
      );
      const staged = new Map<number, Staged>();
      const refused = new Map<number, 'exists' | 'group-gone'>();
      await mapConcurrently(
        chunks,
        CHUNK_CONCURRENCY,
        async (chunk) => {
          let built = new Map<number, Staged>();
          await changes.commit(
            (retried: ReadonlySet<BulkRetry>) => {
              const skip = (index: number) => groupGone(index) || retried.has(`identity:${index}`);
              const next = stagingChanges(orgId, inputs, chunk, skip, batch, ids);
              built = next.staged;
              return next.set;
            },
            { maxAttempts: MAX_ATTEMPTS + chunk.end - chunk.start },
          );
          for (let index = chunk.start; index < chunk.end; index++) {
            const entry = built.get(index);
            if (entry) staged.set(index, entry);
            else refused.set(index, groupGone(index) ? 'group-gone' : 'exists');
          }
        },
        { toEnd: true },
      );
      return { staged: [...staged.values()], refused };
    };

    /**
     * Makes staged assets live, with their group counts and check-index entries. One whose identity
     * the batch no longer claims was published already; one whose id another asset took gets a new
     * one; one whose group was deleted meanwhile is published ungrouped, as the delete would have left it.
     */
    const publishChanges = (
      orgId: string,
      batch: string,
      entries: readonly Staged[],
      retried: ReadonlySet<BulkRetry>,
      rebase: number,
    ) => {
      const set: Change<never, BulkRetry>[] = [];
      const published = new Map<number, Asset>();
      const groupDeltas = new Map<number, number>();
      const deltas: VerdictDelta[] = [];
      for (const entry of entries) {
        if (retried.has(`done:${entry.index}`)) continue;
        const kept = entry.asset.groupId;
        const groupId = kept !== null && retried.has(`group:${kept}`) ? null : kept;
        const id = retried.has(`asset:${entry.index}`) ? rebase + entry.index : entry.asset.id;
        const asset: Asset = { ...entry.asset, id, groupId };
        const item = { ...asset, entity: 'ASSET', version: 1, identitySK: entry.identitySK, checkKey: entry.checkKey };
        set.push(
          claim(
            key.asset(id),
            { ...item, search: searchText(asset), ...liveKeys(asset) },
            retry(`asset:${entry.index}`),
          ),
          record(
            {
              Update: {
                Key: key.storedAssetIdentity(orgId, entry.identitySK),
                UpdateExpression: 'SET assetId = :id REMOVE pendingBatch',
                ConditionExpression: 'pendingBatch = :batch',
                ExpressionAttributeValues: { ':id': id, ':batch': batch },
              },
            },
            retry(`done:${entry.index}` as const),
          ),
        );
        if (id !== entry.asset.id) {
          set.push(
            record({
              Update: {
                Key: key.stagedAsset(orgId, batch, entry.index),
                UpdateExpression: 'SET #asset.#id = :id',
                ExpressionAttributeNames: { '#asset': 'asset', '#id': 'id' },
                ExpressionAttributeValues: { ':id': id },
              },
            }),
          );
        }
        if (groupId !== null) groupDeltas.set(groupId, (groupDeltas.get(groupId) ?? 0) + 1);
        if (entry.checkKey !== undefined) {
          deltas.push({ checkKey: entry.checkKey, type: asset.type, allow: 1, origins: [originOf(asset)] });
        }
        published.set(entry.index, asset);
      }
      for (const [group, delta] of groupDeltas) {
        set.push(record(groupCount(orgId, group, delta), retry(`group:${group}` as const)));
      }
      if (deltas.length > 0) set.push(verdicts(deltas));
      return { set, published };
    };

    const publish = async (orgId: string, batch: string, entries: readonly Staged[]) => {
      // Sized as if every id were taken again: the rebuild of a part never outgrows its transaction.
      const chunks = packUnits(entries.length, (start, end) => {
        const part = entries.slice(start, end);
        const all = new Set(part.map((entry) => `asset:${entry.index}` as const));
        return publishChanges(orgId, batch, part, all, 0).set;
      });
      const published = new Map<number, Asset>();
      await mapConcurrently(
        chunks,
        CHUNK_CONCURRENCY,
        async ({ start, end }) => {
          const part = entries.slice(start, end);
          let built = new Map<number, Asset>();
          await changes.commit(
            (retried: ReadonlySet<BulkRetry>) => {
              const next = publishChanges(orgId, batch, part, retried, newAssetId());
              built = next.published;
              return next.set;
            },
            { maxAttempts: MAX_ATTEMPTS + part.length },
          );
          for (const [index, asset] of built) published.set(index, asset);
          // Published by another run of this batch: as staged.
          for (const entry of part) if (!built.has(entry.index)) published.set(entry.index, entry.asset);
        },
        { toEnd: true },
      );
      return published;
    };

    /** Releases the identities a batch still claims; its staged items expire on their own. */
    const undo = async (marker: BulkMarker) => {
      const entries = await readStaged(marker);
      const parts = Array.from({ length: Math.ceil(entries.length / MAX_ITEMS) }, (_, i) =>
        entries.slice(i * MAX_ITEMS, (i + 1) * MAX_ITEMS),
      );
      await mapConcurrently(
        parts,
        CHUNK_CONCURRENCY,
        async (part) => {
          await changes.commit(
            (retried: ReadonlySet<BulkRetry>) =>
              part
                .filter((entry) => !retried.has(`done:${entry.index}`))
                .map((entry) =>
                  record(
                    {
                      Delete: {
                        Key: key.storedAssetIdentity(marker.orgId, entry.identitySK),
                        ConditionExpression: 'pendingBatch = :batch',
                        ExpressionAttributeValues: { ':batch': marker.batch },
                      },
                    },
                    retry(`done:${entry.index}` as const),
                  ),
                ),
            { maxAttempts: MAX_ATTEMPTS + part.length },
          );
        },
        { toEnd: true },
      );
    };

    const closeQuietly = (marker: BulkMarker) =>
      close(marker).catch((error: unknown) => {
        // Everything is published; the sweeper deletes the marker.
        if (!(error instanceof ConditionalCheckFailedException)) logger.warn('Bulk add marker left open', { error });
      });

    return {
      async add(orgId: string, inputs: readonly PreparedAsset[]): Promise<AddOutcome[]> {
        const request = requestDigest(orgId, inputs);
        let marker = await open(orgId, request);
        let refused = new Map<number, 'exists' | 'group-gone'>();
        let entries: Staged[];
        if (marker.state === 'staging') {
          const stagedNow = await stage(orgId, inputs, marker.batch);
          entries = stagedNow.staged;
          refused = stagedNow.refused;
          if (!(await move(marker, 'staging', 'committed'))) {
            const found = await readMarker(orgId, request);
            if (found?.state !== 'committed' || found.batch !== marker.batch) throw undoing();
            marker = found;
            entries = await readStaged(marker);
          }
        } else {
          entries = await readStaged(marker);
        }
        const published = await publish(orgId, marker.batch, entries);
        await closeQuietly(marker);
        return inputs.map((_, index): AddOutcome => {
          const asset = published.get(index);
          return asset ? { created: asset } : { failed: refused.get(index) ?? 'exists' };
        });
      },

      async resume(before: string, deadline: number) {
        let published = 0;
        let undone = 0;
        for await (const page of queryPages(db, {
          TableName,
          IndexName: ACTIVITY_INDEX.list1.name,
          KeyConditionExpression: '#pk = :pk AND #sk < :before',
          ExpressionAttributeNames: { '#pk': ACTIVITY_INDEX.list1.partitionKey, '#sk': ACTIVITY_INDEX.list1.sortKey },
          ExpressionAttributeValues: { ':pk': OPEN_BULK_ADDS, ':before': before },
        })) {
          for (const marker of page as BulkMarker[]) {
            if (Date.now() >= deadline) return { published, undone };
            if (marker.state === 'committed') {
              await publish(marker.orgId, marker.batch, await readStaged(marker));
              await close(marker).catch((error: unknown) => {
                if (!(error instanceof ConditionalCheckFailedException)) throw error;
              });
              published++;
              continue;
            }
            // A retry that touched the marker since it was listed is still staging it.
            if (marker.state === 'staging' && !(await move(marker, 'staging', 'aborting', marker.touchedAt))) continue;
            await undo(marker);
            await close(marker).catch((error: unknown) => {
              if (!(error instanceof ConditionalCheckFailedException)) throw error;
            });
            undone++;
          }
        }
        return { published, undone };
      },
    };
  })();

  return {
    async findById(id) {
      const item = await read(id);
      return live(item) ? toAsset(item) : undefined;
    },

    async addMany(orgId, inputs) {
      const requestBase = newAssetId();
      const chunks = packUnits(
        inputs.length,
        (start, end) => chunkChanges(orgId, inputs, start, end, new Set(), (index) => requestBase + index).set,
      );
      // One transaction is all or nothing by itself; more are staged, committed and published.
      if (chunks.length <= 1)
        return chunks.length === 0 ? [] : addChunk(orgId, inputs, chunks[0] as Chunk, requestBase);
      return bulk.add(orgId, inputs);
    },

    resumeBulkAdds: (before, deadline) => bulk.resume(before, deadline),

    async update(asset, assetChanges) {
      let next = asset;
      const outcome = await changes.commit(
        async (retried: ReadonlySet<Moved>) => {
          const current = await readLive(asset.id);
          next = changed(toAsset(current), assetChanges);
          const moves = next.groupId !== groupId(current);
          return [
            record<'groupGone', Moved>(replaceLive(current, next), retry('asset')),
            ...(moves && next.groupId !== null
              ? [record<'groupGone', Moved>(groupCount(asset.orgId, next.groupId, 1), refuse('groupGone'))]
              : []),
            ...(moves ? leaveGroup<'groupGone'>(asset.orgId, groupId(current), retried) : []),
          ];
        },
        { maxAttempts: MAX_ATTEMPTS },
      );
      if (!outcome.committed && next.groupId !== null) throw groupGone(next.groupId);
      return next;
    },

    async softDelete(asset) {
      const outcome = await changes.commit(
        async (retried: ReadonlySet<Moved>) => {
          const current = await readLive(asset.id);
          return [
            record<'floor', Moved>(markDeleted(current), retry('asset')),
            record<'floor', Moved>(
              {
                Delete: {
                  Key: key.storedAssetIdentity(current.orgId, current.identitySK),
                  ConditionExpression: 'assetId = :id',
                  ExpressionAttributeValues: { ':id': current.id },
                },
              },
              retry('identity'),
            ),
            ...leaveGroup<'floor'>(current.orgId, groupId(current), retried),
            ...(current.checkKey === undefined
              ? []
              : [
                  verdicts<'floor', Moved>(
                    [{ checkKey: current.checkKey, type: current.type, allow: -1, origins: [originOf(current)] }],
                    { onFloor: refuse('floor') },
                  ),
                ]),
          ];
        },
        { maxAttempts: MAX_ATTEMPTS },
      );
      if (outcome.committed) return;
      // A concurrent delete that committed first also fails the check entry's floor (its count is already lowered).
      await readLive(asset.id);
      throw new Error('Deleting this asset would take its check-index entry below zero: records and index disagree');
    },

    async list(orgId, filter, limit, position) {
      if (filter.groupId === 'ungrouped') return listUngrouped(orgId, filter, limit, position);
      if (filter.groupId !== undefined) {
        // A deleted group lists nothing, though its removal may not have reached every asset yet.
        const { Item } = await db.send(
          new GetCommand({ TableName, Key: key.group(orgId, filter.groupId), ProjectionExpression: 'PK' }),
        );
        if (!Item) return { assets: [] };
      }
      const index = liveIndexFor(filter);
      const query = filter.query === undefined ? undefined : searchable(filter.query) || undefined;
      const positionOf = (item: Record<string, unknown>) =>
        encodePosition({
          PK: item.PK,
          SK: item.SK,
          [index.partitionKey]: item[index.partitionKey],
          [ATTR.liveSort]: item[ATTR.liveSort],
        });
      const assets: Asset[] = [];
      let startKey: Record<string, unknown> | undefined =
        position === undefined ? undefined : decodeLivePosition(index, position);
      for (let page = 0; page < MAX_PAGES && assets.length < limit; page++) {
        const remaining = limit - assets.length;
        const result = await db.send(
          new QueryCommand({
            TableName,
            IndexName: index.name,
            ScanIndexForward: false,
            Limit: query === undefined ? remaining : Math.max(remaining, FILTERED_PAGE_SIZE),
            ExclusiveStartKey: startKey,
            ...partitionQuery(index.partitionKey, livePartition(orgId, filter), query),
          }),
        );
        const items = result.Items ?? [];
        if (items.length > remaining) {
          const taken = items.slice(0, remaining);
          assets.push(...taken.map(toAsset));
          return { assets, position: positionOf(taken[taken.length - 1] as Record<string, unknown>) };
        }
        assets.push(...items.map(toAsset));
        startKey = result.LastEvaluatedKey;
        if (!startKey) return { assets };
      }
      return { assets, position: startKey && encodePosition(startKey) };
    },
  };
};
