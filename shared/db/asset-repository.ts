import { randomInt } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetStatus, AssetType } from '../domain/asset-types.ts';
import type { Asset, AssetStore } from '../domain/assets.ts';
import { NotFoundError } from '../errors.ts';
import { ATTR, key, liveIndexFor, liveKeys, livePartition } from './keys.ts';
import { backoff, cancellationCodes, conflicted, failedCondition, type TransactItem } from './transactions.ts';
import { verdictChange } from './verdict-log.ts';

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

const searchText = (a: { content: string; name?: string; description?: string | null }) =>
  [a.content, a.name ?? '', a.description ?? ''].join('\n').toLowerCase();

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

const groupCount = (TableName: string, orgId: string, groupId: number, delta: 1 | -1): TransactItem => ({
  Update: {
    TableName,
    Key: key.group(orgId, groupId),
    UpdateExpression: 'ADD assetCount :delta',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':delta': delta },
  },
});

/** Whether a condition failed among the items from `start` on (the verdict items, always last). */
const failedFrom = (codes: (string | undefined)[] | undefined, start: number): boolean =>
  codes?.slice(start).includes('ConditionalCheckFailed') ?? false;

export const assetRepository = (db: DynamoDBDocumentClient, table: string): AssetStore => {
  const allowEntry = async (checkKey: string | undefined, type: AssetType, allow: 1 | -1): Promise<TransactItem[]> =>
    checkKey === undefined
      ? []
      : Object.values(await verdictChange(db, table, [{ checkKey, type, allow }])).filter(
          (item): item is TransactItem => item !== undefined,
        );
  const read = async (id: number): Promise<AssetItem | undefined> => {
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: key.asset(id), ConsistentRead: true }));
    return Item as AssetItem | undefined;
  };
  const live = (item: AssetItem | undefined): item is AssetItem => item !== undefined && item.deletedAt === undefined;
  const gone = (id: number) => new NotFoundError(`Asset with ID ${id} not found`);
  const groupGone = (id: number) => new NotFoundError(`Group with ID ${id} not found`);

  return {
    async findById(id) {
      const item = await read(id);
      return live(item) ? toAsset(item) : undefined;
    },

    async create(orgId, input) {
      const identity = key.assetIdentity(orgId, input.type, input.identity);
      const status = input.status ?? 'ALLOWED';
      const groupId = input.groupId ?? null;
      for (let attempt = 1; ; attempt++) {
        const now = new Date().toISOString();
        const asset: Asset = {
          id: newAssetId(),
          orgId,
          content: input.content,
          type: input.type,
          status,
          description: input.description ?? null,
          groupId,
          createdAt: input.createdAt ?? now,
          updatedAt: now,
        };
        if (input.name !== undefined) asset.name = input.name;
        const checkKey = status === 'ALLOWED' ? input.checkKey : undefined;
        const items: TransactItem[] = [
          {
            Put: {
              TableName: table,
              Item: {
                ...key.asset(asset.id),
                entity: 'ASSET',
                ...asset,
                version: 1,
                identitySK: identity.SK,
                checkKey,
                search: searchText(asset),
                ...liveKeys(asset),
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: table,
              Item: { ...identity, entity: 'ASSET_IDENTITY', assetId: asset.id },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        ];
        if (groupId !== null) items.push(groupCount(table, orgId, groupId, 1));
        const verdictStart = items.length;
        items.push(...(await allowEntry(checkKey, input.type, 1)));
        try {
          await db.send(new TransactWriteCommand({ TransactItems: items }));
          return { asset, created: true };
        } catch (error) {
          const codes = cancellationCodes(error);
          if (groupId !== null && failedCondition(codes, 2)) throw groupGone(groupId);
          if (failedCondition(codes, 1)) {
            const { Item } = await db.send(new GetCommand({ TableName: table, Key: identity, ConsistentRead: true }));
            const existing = Item ? await read(Item.assetId as number) : undefined;
            if (live(existing)) return { asset: toAsset(existing), created: false };
          } else if (!failedCondition(codes, 0) && !conflicted(codes) && !failedFrom(codes, verdictStart)) {
            throw error;
          }
          if (attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    },

    async update(asset, changes) {
      let skipOldGroup = false;
      for (let attempt = 1; ; attempt++) {
        const current = await read(asset.id);
        if (!live(current)) throw gone(asset.id);
        const next: Asset = { ...toAsset(current), updatedAt: new Date().toISOString() };
        if (changes.name !== undefined) next.name = changes.name;
        if (changes.description !== undefined) next.description = changes.description;
        if (changes.groupId !== undefined) next.groupId = changes.groupId;
        const oldGroup = current.groupId ?? null;
        const moves = next.groupId !== oldGroup;
        const keys = liveKeys(next);
        const items: TransactItem[] = [
          {
            Update: {
              TableName: table,
              Key: key.asset(asset.id),
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
          },
        ];
        if (moves && next.groupId !== null) items.push(groupCount(table, asset.orgId, next.groupId, 1));
        const oldGroupIndex = items.length;
        if (moves && oldGroup !== null && !skipOldGroup) items.push(groupCount(table, asset.orgId, oldGroup, -1));
        try {
          await db.send(new TransactWriteCommand({ TransactItems: items }));
          return next;
        } catch (error) {
          const codes = cancellationCodes(error);
          if (moves && next.groupId !== null && failedCondition(codes, 1)) throw groupGone(next.groupId);
          // The old group was deleted meanwhile: its count no longer exists to move.
          if (failedCondition(codes, oldGroupIndex)) skipOldGroup = true;
          else if (!failedCondition(codes, 0) && !conflicted(codes)) throw error;
          if (attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    },

    async softDelete(asset) {
      let skipGroup = false;
      for (let attempt = 1; ; attempt++) {
        const current = await read(asset.id);
        if (!live(current)) throw gone(asset.id);
        const now = new Date().toISOString();
        const items: TransactItem[] = [
          {
            Update: {
              TableName: table,
              Key: key.asset(asset.id),
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
          },
          {
            Delete: {
              TableName: table,
              Key: { PK: key.org(current.orgId).PK, SK: current.identitySK },
              ConditionExpression: 'assetId = :id',
              ExpressionAttributeValues: { ':id': current.id },
            },
          },
        ];
        const groupIndex = items.length;
        if (current.groupId !== null && current.groupId !== undefined && !skipGroup) {
          items.push(groupCount(table, current.orgId, current.groupId, -1));
        }
        const verdictStart = items.length;
        items.push(...(await allowEntry(current.checkKey, current.type, -1)));
        try {
          await db.send(new TransactWriteCommand({ TransactItems: items }));
          return;
        } catch (error) {
          const codes = cancellationCodes(error);
          if (failedCondition(codes, groupIndex)) skipGroup = true;
          else if (!failedCondition(codes, 0) && !conflicted(codes) && !failedFrom(codes, verdictStart)) throw error;
          if (attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    },

    async list(orgId, filter, limit, position) {
      const index = liveIndexFor(filter);
      const positionOf = (item: Record<string, unknown>) => ({
        PK: item.PK,
        SK: item.SK,
        [index.partitionKey]: item[index.partitionKey],
        [ATTR.liveSort]: item[ATTR.liveSort],
      });
      const assets: Asset[] = [];
      let startKey: Record<string, unknown> | undefined = position;
      for (let page = 0; page < MAX_PAGES && assets.length < limit; page++) {
        const remaining = limit - assets.length;
        const result = await db.send(
          new QueryCommand({
            TableName: table,
            IndexName: index.name,
            KeyConditionExpression: '#pk = :pk',
            ScanIndexForward: false,
            Limit: filter.query === undefined ? remaining : Math.max(remaining, FILTERED_PAGE_SIZE),
            ExclusiveStartKey: startKey,
            ...(filter.query === undefined
              ? { ExpressionAttributeNames: { '#pk': index.partitionKey } }
              : {
                  FilterExpression: 'contains(#search, :query)',
                  ExpressionAttributeNames: { '#pk': index.partitionKey, '#search': 'search' },
                }),
            ExpressionAttributeValues: {
              ':pk': livePartition(orgId, filter),
              ...(filter.query === undefined ? {} : { ':query': filter.query }),
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
      return { assets, position: startKey };
    },
  };
};
