import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Asset } from '../domain/allowlist/assets.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { queryPages } from './batch.ts';
import { ACTIVITY_INDEX, key, OPEN_BULK_ADDS, openBulkAddKeys } from './keys.ts';

/**
 * A bulk add's marker: its assets are being staged (invisible: in no listing, count or check
 * index), are committed (the commit point: each is published, never undone), or are being undone.
 */
export type BulkState = 'staging' | 'committed' | 'aborting';
export type BulkMarker = { orgId: string; request: string; batch: string; state: BulkState; touchedAt: string };
/** An asset a bulk add staged: what its publication writes. */
export type Staged = { index: number; asset: Asset; identitySK: string; checkKey?: string };
/** Why a change of a bulk add is retried: an identity held, a group gone, an id taken, an identity already published or released. */
export type BulkRetry = `identity:${number}` | `group:${number}` | `asset:${number}` | `done:${number}`;

/** The markers of bulk adds and the assets they staged. */
export const bulkAddMarkers = (db: DynamoDBDocumentClient, TableName: string) => {
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
    const { Item } = await db.send(new GetCommand({ TableName, Key: markerKey(orgId, request), ConsistentRead: true }));
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
  return { open, undoing, readMarker, move, close, readStaged };
};
