import { randomInt } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetStatus, AssetType } from '../domain/asset-types.ts';
import type { Asset, AssetChanges, AssetFilter, AssetPage, AssetStore, NewAsset } from '../domain/assets.ts';
import { INVALID_CURSOR } from '../domain/cursor.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { ATTR, key, type LiveIndex, liveIndexFor, liveKeys, livePartition } from './keys.ts';
import { failedConditions, type NamedItems, type TransactItem, transactWithRetry } from './transactions.ts';
import { verdictChange, verdictItemNames } from './verdict-log.ts';

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
/** Query pages one list request may read before it returns what it has (with a cursor). */
const MAX_PAGES = 4;
const FILTERED_PAGE_SIZE = 500;

/** Time-ordered, collision-checked ids: no hot counter item, and safe integers until the 23rd century. */
const newAssetId = (): number => Date.now() * 1000 + randomInt(1000);

/** Search is case-insensitive: the stored text and every query are lower-cased here, and only here. */
const searchable = (text: string): string => text.toLowerCase();
const searchText = (a: { content: string; name?: string; description?: string | null }) =>
  searchable([a.content, a.name ?? '', a.description ?? ''].join('\n'));

type Position = Record<string, string>;

/** A list position is the index key of the next asset to read; callers see it only as text. */
const encodePosition = (position: Record<string, unknown>): string => JSON.stringify(position);

const decodePosition = (index: LiveIndex, text: string): Position => {
  const fields = [ATTR.pk, ATTR.sk, index.partitionKey, ATTR.liveSort] as string[];
  let position: unknown;
  try {
    position = JSON.parse(text);
  } catch (cause) {
    throw new BadRequestError(INVALID_CURSOR, { cause });
  }
  const valid =
    typeof position === 'object' &&
    position !== null &&
    Object.entries(position).every(([name, value]) => fields.includes(name) && typeof value === 'string');
  if (!valid) throw new BadRequestError(INVALID_CURSOR);
  return position as Position;
};

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

const newAsset = (orgId: string, input: NewAsset): Asset => {
  const now = new Date().toISOString();
  return {
    id: newAssetId(),
    orgId,
    content: input.content,
    type: input.type,
    status: input.status ?? 'ALLOWED',
    ...(input.name === undefined ? {} : { name: input.name }),
    description: input.description ?? null,
    groupId: input.groupId ?? null,
    createdAt: input.createdAt ?? now,
    updatedAt: now,
  };
};

const changed = (current: Asset, changes: AssetChanges): Asset => ({
  ...current,
  ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
  updatedAt: new Date().toISOString(),
});

const groupId = (item: AssetItem): number | null => item.groupId ?? null;

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
  const findByIdentity = async (identity: { PK: string; SK: string }): Promise<Asset | undefined> => {
    const { Item } = await db.send(new GetCommand({ TableName, Key: identity, ConsistentRead: true }));
    const holder = Item ? await read(Item.assetId as number) : undefined;
    return live(holder) ? toAsset(holder) : undefined;
  };

  const putNew = (Item: Record<string, unknown>): TransactItem => ({
    Put: { TableName, Item, ConditionExpression: 'attribute_not_exists(PK)' },
  });
  const groupCount = (orgId: string, id: number | null, delta: 1 | -1): TransactItem | undefined =>
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
  const allowEntry = (checkKey: string | undefined, type: AssetType, allow: 1 | -1): Promise<NamedItems> =>
    checkKey === undefined ? Promise.resolve({}) : verdictChange(db, TableName, [{ checkKey, type, allow }]);
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

  const create = async (
    orgId: string,
    input: Parameters<AssetStore['create']>[1],
    attempt: number,
  ): ReturnType<AssetStore['create']> => {
    const identity = key.assetIdentity(orgId, input.type, input.identity);
    let asset = newAsset(orgId, input);
    const checkKey = asset.status === 'ALLOWED' ? input.checkKey : undefined;
    const build = async () => {
      asset = { ...asset, id: newAssetId() };
      const item = { ...asset, entity: 'ASSET', version: 1, identitySK: identity.SK, checkKey };
      return {
        asset: putNew({ ...key.asset(asset.id), ...item, search: searchText(asset), ...liveKeys(asset) }),
        identity: putNew({ ...identity, entity: 'ASSET_IDENTITY', assetId: asset.id }),
        group: groupCount(orgId, asset.groupId, 1),
        ...(await allowEntry(checkKey, asset.type, 1)),
      };
    };
    try {
      await transactWithRetry(db, build, { retryOn: ['asset', ...VERDICT_ITEMS], maxAttempts: MAX_ATTEMPTS });
      return { asset, created: true };
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.has('group') && asset.groupId !== null) throw groupGone(asset.groupId);
      if (!failed.has('identity')) throw error;
      const existing = await findByIdentity(identity);
      if (existing) return { asset: existing, created: false };
      // The asset holding the identity was deleted since the write failed: the identity is free again.
      if (attempt >= MAX_ATTEMPTS) throw error;
      return create(orgId, input, attempt + 1);
    }
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
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': key.groupRemovals.PK, ':prefix': key.groupRemovals.prefix(orgId) },
          ProjectionExpression: 'groupId',
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) ids.push(item.groupId as number);
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
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
    const before = position === undefined ? undefined : decodePosition(index, position)[ATTR.liveSort];
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

    create: (orgId, input) => create(orgId, input, 1),

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
              Key: { PK: key.org(current.orgId).PK, SK: current.identitySK },
              ConditionExpression: 'assetId = :id',
              ExpressionAttributeValues: { ':id': current.id },
            },
          },
          ...leaveGroup(current.orgId, groupId(current), failedBefore),
          ...(await allowEntry(current.checkKey, current.type, -1)),
        };
      };
      await transactWithRetry(db, build, {
        retryOn: ['asset', 'identity', 'oldGroup', 'oldRemoval', ...VERDICT_ITEMS],
        maxAttempts: MAX_ATTEMPTS,
      });
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
        position === undefined ? undefined : decodePosition(index, position);
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
