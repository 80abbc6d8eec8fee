import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetType } from '../domain/allowlist/asset-types.ts';
import type { CollectionIds, CollectionMove, TaxiiStore } from '../domain/taxii/index.ts';
import {
  COLLECTIONS,
  type IndicatorVersion,
  indicatorIdOf,
  type Maintained,
  micros,
  nowMicros,
} from '../domain/taxii/index.ts';
import { batchGetAll, batchPutAll } from './batch.ts';
import { type Change, record } from './change-set.ts';
import { key } from './keys.ts';

const toVersion = (item: Record<string, unknown>): IndicatorVersion => ({
  objectId: item.objectId as string,
  collection: item.collection as Maintained,
  dateAdded: item.dateAdded as string,
  created: item.created as string,
  modified: item.modified as string,
  revoked: item.revoked === true,
  checkKey: item.checkKey as string,
  assetType: item.assetType as AssetType,
});

/** A revocation is always later than the version it revokes (STIX orders versions by `modified`). */
const laterThan = (created: string, at: string): string => {
  const time = Math.max(Date.parse(at), Date.parse(created) + 1);
  return new Date(time).toISOString();
};

/** The version a move adds to its collection, as stored in the collection's stream (`V#<date added>#<id>`). */
export const versionItem = (move: CollectionMove, now: number = Date.now()) => {
  const objectId = indicatorIdOf(move.orgId, move.collection, move.checkKey, move.generation);
  const dateAdded = nowMicros(now);
  const created = new Date(move.created).toISOString();
  const version: IndicatorVersion = {
    objectId,
    collection: move.collection,
    dateAdded,
    created,
    modified: move.enter ? created : laterThan(created, new Date(now).toISOString()),
    revoked: !move.enter,
    checkKey: move.checkKey,
    assetType: move.assetType,
  };
  return { ...key.taxiiVersion(move.orgId, move.collection, dateAdded, objectId), entity: 'TAXII_VERSION', ...version };
};

/**
 * The writes of collection moves, for the transaction that makes them: per move, its new version
 * in the collection's stream and its object's item (the versions it has, whether revoked). Two
 * items a move and no read: an indicator's id is a function of what moved.
 */
export const collectionChanges = <R = never, T = never>(
  moves: readonly CollectionMove[],
  now: number = Date.now(),
): Change<R, T>[] =>
  moves.flatMap((move) => {
    const item = versionItem(move, now);
    const { PK: _pk, SK: _sk, entity: _entity, ...version } = item;
    return [
      record<R, T>({ Put: { Item: item } }),
      record<R, T>({
        Update: {
          Key: key.taxiiObject(move.orgId, move.collection, version.objectId),
          UpdateExpression:
            'SET entity = :entity, versions = list_append(if_not_exists(versions, :none), :version), revoked = :revoked',
          ExpressionAttributeValues: {
            ':entity': 'TAXII_OBJECT',
            ':none': [],
            ':version': [version],
            ':revoked': version.revoked,
          },
        },
      }),
    ];
  });

/** The items of a move that enters a collection, written directly: for the migration of earlier data, and for loading large collections in tests and benchmarks. */
export const enteredItems = (move: CollectionMove, now: number = Date.now()) => {
  const item = versionItem({ ...move, enter: true }, now);
  const { PK: _pk, SK: _sk, entity: _entity, ...version } = item;
  return [
    item,
    {
      ...key.taxiiObject(move.orgId, move.collection, version.objectId),
      entity: 'TAXII_OBJECT',
      versions: [version],
      revoked: false,
    },
  ] as const;
};

/**
 * Gives an organization its three collection ids (random UUIDv4) unless it has them: written with
 * the organization by the operator's tools, so reads never write, and ids never change once set.
 */
export const ensureCollectionIds = async (
  db: DynamoDBDocumentClient,
  table: string,
  orgId: string,
  ids: CollectionIds = { blocked: randomUUID(), allowed: randomUUID(), submissions: randomUUID() },
) => {
  await db.send(
    new UpdateCommand({
      TableName: table,
      Key: key.taxiiCollections(orgId),
      UpdateExpression: 'SET entity = :entity, ids = if_not_exists(ids, :ids)',
      ExpressionAttributeValues: { ':entity': 'TAXII_COLLECTIONS', ':ids': ids },
    }),
  );
};

export const taxiiRepository = (db: DynamoDBDocumentClient, table: string): TaxiiStore => {
  const known = new Map<string, CollectionIds>();
  return {
    async collectionIds(orgId) {
      const cached = known.get(orgId);
      if (cached) return cached;
      const { Item } = await db.send(new GetCommand({ TableName: table, Key: key.taxiiCollections(orgId) }));
      const ids = Item?.ids as CollectionIds | undefined;
      if (ids === undefined || COLLECTIONS.some((name) => typeof ids[name] !== 'string')) return undefined;
      known.set(orgId, ids);
      return ids;
    },

    positionAfter: (dateAdded) => `V#${micros(dateAdded)}#~`,

    async versions(orgId, collection, position, limit) {
      const partition = key.taxiiCollectionPartition(orgId, collection);
      // Only a version's own sort key is a position; anything before the versions starts at the first.
      const after = position?.startsWith('V#') ? position : undefined;
      const { Items = [], LastEvaluatedKey } = await db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression:
            after === undefined ? 'PK = :pk AND begins_with(SK, :v)' : 'PK = :pk AND SK BETWEEN :after AND :end',
          ExpressionAttributeValues:
            after === undefined
              ? { ':pk': partition, ':v': 'V#' }
              : { ':pk': partition, ':after': `${after}\u0000`, ':end': 'V#~' },
          Limit: limit,
        }),
      );
      const last = Items.at(-1)?.SK as string | undefined;
      return {
        versions: Items.map(toVersion),
        ...(last === undefined ? {} : { last }),
        more: LastEvaluatedKey !== undefined,
      };
    },

    async objectVersions(orgId, collection, objectId) {
      const { Item } = await db.send(
        new GetCommand({ TableName: table, Key: key.taxiiObject(orgId, collection, objectId), ConsistentRead: true }),
      );
      return ((Item?.versions as Record<string, unknown>[] | undefined) ?? []).map(toVersion);
    },

    async revoked(orgId, collection, objectIds) {
      const items = await batchGetAll(
        db,
        table,
        [...new Set(objectIds)].map((id) => key.taxiiObject(orgId, collection, id)),
        { expression: '#sk, #revoked', names: { '#sk': 'SK', '#revoked': 'revoked' } },
      );
      return new Set(items.filter((item) => item.revoked === true).map((item) => (item.SK as string).slice(2)));
    },

    async putStatus(orgId, status) {
      await db.send(
        new PutCommand({
          TableName: table,
          Item: { ...key.taxiiStatus(orgId, status.id), entity: 'TAXII_STATUS', status },
        }),
      );
    },

    async findStatus(orgId, id) {
      const { Item } = await db.send(
        new GetCommand({ TableName: table, Key: key.taxiiStatus(orgId, id), ConsistentRead: true }),
      );
      return Item?.status as (Record<string, unknown> & { id: string }) | undefined;
    },

    async submitted(orgId, pairs) {
      if (pairs.length === 0) return new Set();
      const items = await batchGetAll(
        db,
        table,
        pairs.map(({ id, modified }) => key.taxiiSubmitted(orgId, id, modified)),
        undefined,
        { consistent: true },
      );
      return new Set(items.map((item) => `${item.objectId as string}\n${item.modified as string}`));
    },

    async markSubmitted(orgId, pairs) {
      await batchPutAll(
        db,
        table,
        pairs.map(({ id, modified }) => ({
          ...key.taxiiSubmitted(orgId, id, modified),
          entity: 'TAXII_SUBMITTED',
          objectId: id,
          modified,
        })),
      );
    },
  };
};
