import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Dispute, DisputeStore } from '../domain/intake/disputes.ts';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import { toRecord } from './activity-repository.ts';
import { queryPages, scanPages } from './batch.ts';
import { type ChangeSet, changeWriter, claim, record, refuse, retry, verdicts } from './change-set.ts';
import { attributesOf } from './items.ts';
import { ACTIVITY_INDEX, key, listPartition } from './keys.ts';

const ENTITY = 'DISPUTE';

const toDispute = (item: Record<string, unknown>): Dispute => attributesOf<Dispute>(item);

/**
 * Disputes: the dispute at its id, and in its content's partition one marker per requester (the
 * uniqueness of a requester's dispute of a content, and the status an open-dispute check reads)
 * and the service's allowlisting of the content once a dispute of it is upheld.
 */
export const disputeRepository = (db: DynamoDBDocumentClient, TableName: string): DisputeStore => ({
  async create(dispute) {
    const marker = key.disputeMarker(dispute.checkKey, dispute.requester);
    const outcome = await changeWriter(db, TableName).commit(() => [
      claim(marker, { disputeId: dispute.id, status: dispute.status }, refuse('disputed')),
      claim(key.dispute(dispute.id), { entity: ENTITY, ...dispute }),
    ]);
    if (outcome.committed) return { created: true };
    const { Item } = await db.send(new GetCommand({ TableName, Key: marker, ConsistentRead: true }));
    return { created: false, existingId: String(Item?.disputeId) };
  },

  async find(id) {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.dispute(id), ConsistentRead: true }));
    return Item ? toDispute(Item) : undefined;
  },

  async list() {
    const disputes: Dispute[] = [];
    for await (const page of scanPages(db, {
      TableName,
      FilterExpression: 'entity = :entity',
      ExpressionAttributeValues: { ':entity': ENTITY },
    })) {
      disputes.push(...(page.Items ?? []).map(toDispute));
    }
    return disputes.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  },

  async isDisputed(checkKey) {
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :by)',
        FilterExpression: '#status = :open',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pk': key.serviceAllowlisting(checkKey).PK, ':by': 'BY#', ':open': 'OPEN' },
        ConsistentRead: true,
      }),
    );
    return Items.length > 0;
  },

  async resolve(dispute, status, at, note) {
    const allowlisting = key.serviceAllowlisting(dispute.checkKey);
    const build = async (): Promise<ChangeSet<'stale', 'allowlisted'>> => {
      const closing = [
        record<'stale', 'allowlisted'>(
          {
            Update: {
              Key: key.dispute(dispute.id),
              UpdateExpression: `SET #status = :status, resolvedAt = :at${note === undefined ? '' : ', resolutionNote = :note'}`,
              ConditionExpression: '#status = :open',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':status': status,
                ':at': at,
                ':open': 'OPEN',
                ...(note === undefined ? {} : { ':note': note }),
              },
            },
          },
          // Another resolution of this dispute committed first.
          refuse('stale'),
        ),
        record({
          Update: {
            Key: key.disputeMarker(dispute.checkKey, dispute.requester),
            UpdateExpression: 'SET #status = :status',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': status },
          },
        }),
      ];
      if (status !== 'UPHELD') return closing;
      const { Item } = await db.send(new GetCommand({ TableName, Key: allowlisting, ConsistentRead: true }));
      if (Item !== undefined) return closing;
      return [
        ...closing,
        // Another upheld dispute of the same content committed first: build again, without it.
        claim(
          allowlisting,
          { disputeId: dispute.id, checkKey: dispute.checkKey, allowlistedAt: at },
          retry('allowlisted'),
        ),
        verdicts([{ checkKey: dispute.checkKey, type: dispute.type, allow: 1 }]),
      ];
    };
    const outcome = await changeWriter(db, TableName).commit(build);
    return outcome.committed ? 'resolved' : outcome.refused;
  },
});

/**
 * The threats of an organization that block content at `checkKey`: its blocking threats' listing
 * partition, filtered by key. It reads the organization's whole listing (an unblock is rare; a
 * threat's content is not a key of any index).
 */
export const blockingThreatsOf =
  (db: DynamoDBDocumentClient, TableName: string) =>
  async (orgId: string, checkKey: string): Promise<ActivityRecord[]> => {
    const { list1 } = ACTIVITY_INDEX;
    const threats: ActivityRecord[] = [];
    for await (const items of queryPages(db, {
      TableName,
      IndexName: list1.name,
      KeyConditionExpression: '#pk = :pk',
      FilterExpression: 'checkKey = :key',
      ExpressionAttributeNames: { '#pk': list1.partitionKey },
      ExpressionAttributeValues: { ':pk': listPartition(orgId, 'THREATS'), ':key': checkKey },
    })) {
      threats.push(...items.map(toRecord));
    }
    return threats;
  };

/** A user's e-mail address, when the directory holds one. */
export const userEmailOf =
  (db: DynamoDBDocumentClient, TableName: string) =>
  async (userId: string): Promise<string | undefined> => {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.user(userId) }));
    return typeof Item?.email === 'string' ? Item.email : undefined;
  };
