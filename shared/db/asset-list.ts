import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Asset, AssetFilter, AssetPage } from '../domain/allowlist/assets.ts';
import { searchable, toAsset } from './asset-items.ts';
import { queryPages } from './batch.ts';
import { ATTR, key, type LiveIndex, liveIndexFor, livePartition } from './keys.ts';
import { decodePosition } from './position.ts';

/** Query pages one list request may read before it returns what it has (with a cursor). */
const MAX_PAGES = 4;
const FILTERED_PAGE_SIZE = 500;

type Position = Record<string, string>;

/** A list position is the index key of the next asset to read; callers see it only as text. */
const encodePosition = (position: Record<string, unknown>): string => JSON.stringify(position);

const decodeLivePosition = (index: LiveIndex, text: string): Position =>
  decodePosition(text, [ATTR.pk, ATTR.sk, index.partitionKey, ATTR.liveSort]) as Position;

/** Lists an organization's live assets, newest first, a bounded number of reads per page. */
export const assetLister = (db: DynamoDBDocumentClient, TableName: string) => {
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

  return async (
    orgId: string,
    filter: AssetFilter,
    limit: number,
    position: string | undefined,
  ): Promise<AssetPage> => {
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
  };
};
