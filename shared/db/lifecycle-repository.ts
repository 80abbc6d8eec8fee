import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import type { ListFilter, Listing, ListStore } from '../domain/lifecycle/lists.ts';
import { toRecord } from './activity-repository.ts';
import { ACTIVITY_INDEX, type ActivityIndex, assetPartition, listPartition } from './keys.ts';
import { decodePosition } from './position.ts';

/** Query calls one page request may make before it answers with what it has: reads stay within 4 × the page size. */
const MAX_QUERIES = 4;
/** One organization's records of an asset are looked for in at most 8 pages of 100 of the asset's records. */
const OWN_RECORD_PAGES = 8;
const OWN_RECORD_PAGE_SIZE = 100;
/** Sorts after every character a sort key continues with, so `to + END` includes all of `to`. */
const END = '\uffff';

/** The first `limit` records of one partition of the by-asset index (`activityIndexKeys`). */
export const readByAsset = async (
  db: DynamoDBDocumentClient,
  TableName: string,
  partition: string,
  { limit, newestFirst }: { limit: number; newestFirst: boolean },
): Promise<ActivityRecord[]> => {
  const { name, partitionKey } = ACTIVITY_INDEX.byAsset;
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName,
      IndexName: name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': partitionKey },
      ExpressionAttributeValues: { ':pk': partition },
      ...(newestFirst ? { ScanIndexForward: false } : {}),
      Limit: limit,
    }),
  );
  return Items.map(toRecord);
};

const LISTINGS: Record<
  Listing,
  { index: ActivityIndex; listing: 'REPORTS' | 'THREATS' | 'TAKEDOWNS'; suffix?: string }
> = {
  reports: { index: ACTIVITY_INDEX.list1, listing: 'REPORTS' },
  'reports-pending': { index: ACTIVITY_INDEX.list2, listing: 'REPORTS', suffix: '#PENDING' },
  'reports-rejected': { index: ACTIVITY_INDEX.list3, listing: 'REPORTS', suffix: '#REJECTED' },
  'reports-pending-rejected': { index: ACTIVITY_INDEX.list4, listing: 'REPORTS', suffix: '#PENDING#REJECTED' },
  'threats-by-id': { index: ACTIVITY_INDEX.list1, listing: 'THREATS' },
  'threats-by-blockedAt': { index: ACTIVITY_INDEX.list2, listing: 'THREATS' },
  'threats-by-content': { index: ACTIVITY_INDEX.list3, listing: 'THREATS' },
  'threats-by-type': { index: ACTIVITY_INDEX.list4, listing: 'THREATS' },
  'takedowns-by-updatedAt': { index: ACTIVITY_INDEX.list1, listing: 'TAKEDOWNS' },
  'takedowns-by-createdAt': { index: ACTIVITY_INDEX.list2, listing: 'TAKEDOWNS' },
};

const filterExpression = (filter: ListFilter) => {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const within = (attribute: string, list: readonly string[], prefix: string) => {
    names[`#${prefix}`] = attribute;
    const placeholders = list.map((value, i) => {
      values[`:${prefix}${i}`] = value;
      return `:${prefix}${i}`;
    });
    parts.push(`#${prefix} IN (${placeholders.join(', ')})`);
  };
  if (filter.assetTypes?.length) within('assetType', filter.assetTypes, 'type');
  if (filter.statuses?.length) within('status', filter.statuses, 'status');
  if (filter.liveness?.length) {
    within('livenessStatus', filter.liveness, 'live');
    if (filter.liveness.includes('UNKNOWN')) parts.push(`(${parts.pop()} OR attribute_not_exists(#live))`);
  }
  if (filter.contentContains !== undefined) {
    names['#search'] = 'search';
    values[':search'] = filter.contentContains;
    parts.push('contains(#search, :search)');
  }
  if (filter.between) {
    names['#between'] = filter.between.attribute;
    values[':from'] = filter.between.from;
    values[':to'] = filter.between.to;
    parts.push('#between BETWEEN :from AND :to');
  }
  return parts.length === 0 ? {} : { FilterExpression: parts.join(' AND '), names, values };
};

/** A position is the index key of the last item read; it is only ever read back for the same index. */
const decodeIndexPosition = (index: ActivityIndex, text: string): Record<string, string> =>
  decodePosition(text, ['PK', 'SK', index.partitionKey, index.sortKey]);

/** The lifecycle listings: one Query of a sparse index partition per call, never a Scan. */
export const lifecycleRepository = (db: DynamoDBDocumentClient, TableName: string): ListStore => ({
  async page({ listing, orgId, range, descending, filter, limit, position }) {
    const { index, listing: kind, suffix } = LISTINGS[listing];
    const names: Record<string, string> = { '#pk': index.partitionKey };
    const values: Record<string, unknown> = { ':pk': listPartition(orgId, kind, suffix) };
    let condition = '#pk = :pk';
    if (range?.from !== undefined || range?.to !== undefined) {
      names['#sk'] = index.sortKey;
      if (range.from !== undefined) values[':low'] = range.from;
      if (range.to !== undefined) values[':high'] = `${range.to}${END}`;
      condition +=
        range.from === undefined
          ? ' AND #sk <= :high'
          : range.to === undefined
            ? ' AND #sk >= :low'
            : ' AND #sk BETWEEN :low AND :high';
    }
    const filtered = filterExpression(filter);
    const records = [];
    let start: Record<string, unknown> | undefined =
      position === undefined ? undefined : decodeIndexPosition(index, position);
    for (let call = 0; call < MAX_QUERIES && records.length < limit; call++) {
      const result: QueryCommandOutput = await db.send(
        new QueryCommand({
          TableName,
          IndexName: index.name,
          KeyConditionExpression: condition,
          ...(filtered.FilterExpression ? { FilterExpression: filtered.FilterExpression } : {}),
          ExpressionAttributeNames: { ...names, ...filtered.names },
          ExpressionAttributeValues: { ...values, ...filtered.values },
          ScanIndexForward: !descending,
          Limit: limit - records.length,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      records.push(...(result.Items ?? []).map(toRecord));
      start = result.LastEvaluatedKey;
      if (start === undefined) break;
    }
    return start === undefined ? { records } : { records, position: JSON.stringify(start) };
  },

  byAsset: (assetId, limit) => readByAsset(db, TableName, assetPartition(assetId), { limit, newestFirst: true }),
  async byAssetOf(assetId, organization, limit) {
    const { name, partitionKey } = ACTIVITY_INDEX.byAsset;
    const found: ActivityRecord[] = [];
    let start: Record<string, unknown> | undefined;
    for (let page = 0; page < OWN_RECORD_PAGES && found.length < limit; page++) {
      const { Items = [], LastEvaluatedKey } = await db.send(
        new QueryCommand({
          TableName,
          IndexName: name,
          KeyConditionExpression: '#pk = :pk',
          FilterExpression: '#org = :org',
          ExpressionAttributeNames: { '#pk': partitionKey, '#org': 'organization' },
          ExpressionAttributeValues: { ':pk': assetPartition(assetId), ':org': organization },
          ScanIndexForward: false,
          Limit: OWN_RECORD_PAGE_SIZE,
          ...(start === undefined ? {} : { ExclusiveStartKey: start }),
        }),
      );
      found.push(...Items.map(toRecord));
      start = LastEvaluatedKey;
      if (start === undefined) break;
    }
    return found.slice(0, limit);
  },
});
