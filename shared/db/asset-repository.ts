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
import { ATTR, key, type LiveIndex, liveIndexFor, liveKeys, livePartition } from './keys.ts';
import { decodePosition } from './position.ts';
import { failedConditions, type NamedItems, type TransactItem, transactWithRetry } from './transactions.ts';
import { type VerdictDelta, type VerdictOrigin, verdictChange, verdictItemNames } from './verdict-log.ts';

/** An asset moves at most one check-index entry. */
const VERDICT_ITEMS = verdictItemNames(1);

type AssetItem = Asset & {
  version: number;
  identitySK: string;
  checkKey?: string;
  deletedAt?: string;
  [ATTR.liveSort]?: string;
};

const MAX_ATTEMPTS = 12;
/** DynamoDB's limit of items in one transaction. */
const MAX_TRANSACTION_ITEMS = 100;
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
 * Input positions split, in order, into transactions of at most 100 items: two per asset (the
 * asset and its identity), one per group and two per check-index entry the chunk touches (the
 * entry and its verdict-log record).
 */
const packChunks = (inputs: readonly PreparedAsset[]): number[][] => {
  const chunks: number[][] = [];
  let chunk: number[] = [];
  let groups = new Set<number>();
  let checkKeys = new Set<string>();
  inputs.forEach((input, index) => {
    const group = input.groupId ?? null;
    const newGroup = group !== null && !groups.has(group) ? 1 : 0;
    const newCheck = input.checkKey !== undefined && !checkKeys.has(input.checkKey) ? 1 : 0;
    const items = 2 * (chunk.length + 1) + groups.size + newGroup + 2 * (checkKeys.size + newCheck);
    if (items > MAX_TRANSACTION_ITEMS) {
      chunks.push(chunk);
      chunk = [];
      groups = new Set();
      checkKeys = new Set();
    }
    chunk.push(index);
    if (group !== null) groups.add(group);
    if (input.checkKey !== undefined) checkKeys.add(input.checkKey);
  });
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
};

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

  const putNew = (Item: Record<string, unknown>): TransactItem => ({
    Put: { TableName, Item, ConditionExpression: 'attribute_not_exists(PK)' },
  });
  const groupCount = (orgId: string, id: number | null, delta: number): TransactItem | undefined =>
    id === null
      ? undefined
      : {
          Update: {
            TableName,
            Key: key.group(orgId, id),
            UpdateExpression: 'ADD assetCount :delta',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':delta': delta },
          },
        };
  /** An asset leaves a deleted group whose ungrouping is unfinished: one fewer left to ungroup. */
  const removalCount = (orgId: string, id: number | null): TransactItem | undefined =>
    id === null
      ? undefined
      : {
          Update: {
            TableName,
            Key: key.groupRemoval(orgId, id),
            UpdateExpression: 'ADD remaining :minus',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':minus': -1 },
          },
        };
  /**
   * What leaving group `id` changes: its `assetCount`, or, once the group is deleted (its condition
   * failed before), the count of assets its removal has still to ungroup; nothing once both are gone.
   */
  const leaveGroup = (orgId: string, id: number | null, failedBefore: ReadonlySet<string>) => ({
    oldGroup: failedBefore.has('oldGroup') ? undefined : groupCount(orgId, id, -1),
    oldRemoval: failedBefore.has('oldGroup') && !failedBefore.has('oldRemoval') ? removalCount(orgId, id) : undefined,
  });
  /** The asset's allowlisting in the check index and the verdict log (none for an asset that allows nothing). */
  const allowEntry = (checkKey: string | undefined, asset: Asset, allow: 1 | -1): Promise<NamedItems> =>
    checkKey === undefined
      ? Promise.resolve({})
      : verdictChange(db, TableName, [{ checkKey, type: asset.type, allow, origins: [originOf(asset)] }]);
  /** Writes `next` over the asset version `current` was read at, keeping it in the live indexes. */
  const replaceLive = (current: AssetItem, next: Asset): TransactItem => {
    const keys = liveKeys(next);
    return {
      Update: {
        TableName,
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
  const markDeleted = (current: AssetItem): TransactItem => {
    const now = new Date().toISOString();
    return {
      Update: {
        TableName,
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

  /** Everything one chunk writes, keyed by item name; inputs named in `refused` are left out. */
  const chunkItems = async (
    orgId: string,
    inputs: readonly PreparedAsset[],
    chunk: readonly number[],
    refused: ReadonlySet<string>,
    idOf: (index: number) => number,
  ) => {
    const written = new Map<number, Asset>();
    const items: NamedItems = {};
    const groupDeltas = new Map<number, number>();
    const verdicts: VerdictDelta[] = [];
    for (const index of chunk) {
      const input = inputs[index] as PreparedAsset;
      const group = input.groupId ?? null;
      if (refused.has(`identity${index}`) || (group !== null && refused.has(`group${group}`))) continue;
      const asset = newAsset(orgId, input, idOf(index), new Date().toISOString());
      const identity = key.assetIdentity(orgId, asset.type, input.identity);
      const checkKey = asset.status === 'ALLOWED' ? input.checkKey : undefined;
      const item = { ...asset, entity: 'ASSET', version: 1, identitySK: identity.SK, checkKey };
      items[`asset${index}`] = putNew({
        ...key.asset(asset.id),
        ...item,
        search: searchText(asset),
        ...liveKeys(asset),
      });
      items[`identity${index}`] = putNew({ ...identity, entity: 'ASSET_IDENTITY', assetId: asset.id });
      if (group !== null) groupDeltas.set(group, (groupDeltas.get(group) ?? 0) + 1);
      if (checkKey !== undefined) verdicts.push({ checkKey, type: asset.type, allow: 1, origins: [originOf(asset)] });
      written.set(index, asset);
    }
    for (const [group, delta] of groupDeltas) items[`group${group}`] = groupCount(orgId, group, delta);
    return { items: { ...items, ...(await verdictChange(db, TableName, verdicts)) }, written };
  };

  /** One transaction per chunk; identities already taken, and groups gone meanwhile, drop out and the rest retries. */
  const addChunk = async (
    orgId: string,
    inputs: readonly PreparedAsset[],
    chunk: readonly number[],
    requestBase: number,
  ) => {
    let refused: ReadonlySet<string> = new Set();
    let written = new Map<number, Asset>();
    let base = requestBase;
    const build = async (failedBefore: ReadonlySet<string>) => {
      // Ids are unique within the request; one taken by another request gets a fresh base on the retry.
      if (chunk.some((index) => failedBefore.has(`asset${index}`))) base = newAssetId();
      refused = failedBefore;
      const built = await chunkItems(orgId, inputs, chunk, failedBefore, (index) => base + index);
      written = built.written;
      return built.items;
    };
    const groups = new Set(chunk.map((index) => inputs[index]?.groupId ?? null));
    const retryOn = [
      ...chunk.flatMap((index) => [`asset${index}`, `identity${index}`]),
      ...[...groups].map((group) => `group${group}`),
      // A check-index entry changed since it was read: read it again.
      ...verdictItemNames(chunk.length),
    ];
    await transactWithRetry(db, build, { retryOn, maxAttempts: MAX_ATTEMPTS + chunk.length });
    return chunk.map((index): AddOutcome => {
      const asset = written.get(index);
      if (asset) return { created: asset };
      return { failed: refused.has(`identity${index}`) ? 'exists' : 'group-gone' };
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
      const chunks = packChunks(inputs);
      const outcomes = await mapConcurrently(chunks, CHUNK_CONCURRENCY, (chunk) =>
        addChunk(orgId, inputs, chunk, requestBase),
      );
      return outcomes.flat();
    },

    async update(asset, changes) {
      let next = asset;
      const build = async (failedBefore: ReadonlySet<string>) => {
        const current = await readLive(asset.id);
        next = changed(toAsset(current), changes);
        const moves = next.groupId !== groupId(current);
        return {
          asset: replaceLive(current, next),
          newGroup: moves ? groupCount(asset.orgId, next.groupId, 1) : undefined,
          ...(moves ? leaveGroup(asset.orgId, groupId(current), failedBefore) : {}),
        };
      };
      try {
        await transactWithRetry(db, build, {
          retryOn: ['asset', 'oldGroup', 'oldRemoval'],
          maxAttempts: MAX_ATTEMPTS,
        });
        return next;
      } catch (error) {
        if (failedConditions(error).has('newGroup') && next.groupId !== null) throw groupGone(next.groupId);
        throw error;
      }
    },

    async softDelete(asset) {
      const build = async (failedBefore: ReadonlySet<string>) => {
        const current = await readLive(asset.id);
        return {
          asset: markDeleted(current),
          identity: {
            Delete: {
              TableName,
              Key: key.storedAssetIdentity(current.orgId, current.identitySK),
              ConditionExpression: 'assetId = :id',
              ExpressionAttributeValues: { ':id': current.id },
            },
          },
          ...leaveGroup(current.orgId, groupId(current), failedBefore),
          ...(await allowEntry(current.checkKey, current, -1)),
        };
      };
      try {
        await transactWithRetry(db, build, {
          retryOn: ['asset', 'identity', 'oldGroup', 'oldRemoval', ...VERDICT_ITEMS],
          maxAttempts: MAX_ATTEMPTS,
        });
      } catch (error) {
        // A concurrent delete that committed first also fails the check entry's floor (its count is already lowered).
        if (failedConditions(error).has('asset')) await readLive(asset.id);
        throw error;
      }
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
