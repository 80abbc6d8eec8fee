import { randomInt } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetStatus, AssetType } from '../domain/asset-types.ts';
import {
  type AddOutcome,
  type Asset,
  type AssetChanges,
  type AssetFilter,
  type AssetPage,
  type AssetStore,
  newAsset,
  type PreparedAsset,
} from '../domain/assets.ts';
import { mapConcurrently } from '../domain/concurrency.ts';
import { NotFoundError } from '../errors.ts';
import { queryPages } from './batch.ts';
import {
  type Change,
  changeWriter,
  claim,
  packUnits,
  record,
  refuse,
  retry,
  verdicts,
  type Write,
} from './change-set.ts';
import { ATTR, key, type LiveIndex, liveIndexFor, liveKeys, livePartition } from './keys.ts';
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
    { start, end }: { start: number; end: number },
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
      const outcomes = await mapConcurrently(chunks, CHUNK_CONCURRENCY, (chunk) =>
        addChunk(orgId, inputs, chunk, requestBase),
      );
      return outcomes.flat();
    },

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
