import { randomInt } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetStatus, AssetType } from '../domain/asset-types.ts';
import type { Asset, AssetChanges, AssetStore, NewAsset } from '../domain/assets.ts';
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
          // A deleted old group has no count left to move.
          oldGroup: moves && !failedBefore.has('oldGroup') ? groupCount(asset.orgId, groupId(current), -1) : undefined,
        };
      };
      try {
        await transactWithRetry(db, build, { retryOn: ['asset', 'oldGroup'], maxAttempts: MAX_ATTEMPTS });
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
          // A deleted group has no count left to move.
          group: failedBefore.has('group') ? undefined : groupCount(current.orgId, groupId(current), -1),
          ...(await allowEntry(current.checkKey, current.type, -1)),
        };
      };
      await transactWithRetry(db, build, {
        retryOn: ['asset', 'identity', 'group', ...VERDICT_ITEMS],
        maxAttempts: MAX_ATTEMPTS,
      });
    },

    async list(orgId, filter, limit, position) {
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
            KeyConditionExpression: '#pk = :pk',
            ScanIndexForward: false,
            Limit: query === undefined ? remaining : Math.max(remaining, FILTERED_PAGE_SIZE),
            ExclusiveStartKey: startKey,
            ...(query === undefined
              ? { ExpressionAttributeNames: { '#pk': index.partitionKey } }
              : {
                  FilterExpression: 'contains(#search, :query)',
                  ExpressionAttributeNames: { '#pk': index.partitionKey, '#search': 'search' },
                }),
            ExpressionAttributeValues: {
              ':pk': livePartition(orgId, filter),
              ...(query === undefined ? {} : { ':query': query }),
            },
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
