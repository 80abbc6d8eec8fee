import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ConsumptionStore } from '../domain/lookups/consumers.ts';
import { bitsOf, statusOf, timeOf } from '../domain/verdict-feed/index.ts';
import { eventIdOf } from '../domain/webhooks/webhooks.ts';
import { ATTR, key } from './keys.ts';
import { entryCounts } from './verdict-change.ts';

/** Delivery records read before the one that holds a change: a test event's record may sort between. */
const DELIVERY_RECORDS = 3;

const timeOfVersion = (version: string): string => new Date(timeOf(version)).toISOString();

type StoredEvent = { eventId?: string; status?: string; updatedAt?: string };

/**
 * When the service's distribution channels took a block, read from what the service keeps: the
 * check-index entry (its `blockedSince`, set by the change that made the verdict BLOCKED), and
 * the webhooks' delivery records, which sort by the log position of the change they deliver.
 */
export const consumerRepository = (db: DynamoDBDocumentClient, TableName: string): ConsumptionStore => {
  const firstDeliveryOfHook = async (hookId: string, orgId: string, version: string) => {
    const eventId = eventIdOf('asset.status-updated', orgId, version);
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: '#pk = :pk AND #sk <= :upTo',
        ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
        ExpressionAttributeValues: { ':pk': key.webhookDeliveryPartition(hookId), ':upTo': `${version}#\uffff` },
        ScanIndexForward: false,
        Limit: DELIVERY_RECORDS,
      }),
    );
    // A record holds one event (written before records were batched) or a batch of them.
    const events = Items.flatMap((item) => (item.events as StoredEvent[] | undefined) ?? [item as StoredEvent]);
    const delivered = events.find((event) => event.eventId === eventId && event.status === 'SUCCESS');
    return delivered?.updatedAt;
  };

  return {
    async blockedSince(checkKey) {
      const { Item } = await db.send(
        new GetCommand({
          TableName,
          Key: key.checkEntry(checkKey),
          ProjectionExpression: '#allow, #block, #watch, #lastChange, #blockedSince',
          ExpressionAttributeNames: {
            '#allow': 'allow',
            '#block': 'block',
            '#watch': 'watch',
            '#lastChange': 'lastChange',
            '#blockedSince': 'blockedSince',
          },
        }),
      );
      if (Item === undefined || statusOf(bitsOf(entryCounts(Item))) !== 'BLOCKED') return undefined;
      // An entry blocked before `blockedSince` was kept: its last change is the earliest time known to hold the block.
      const version = typeof Item.blockedSince === 'string' ? Item.blockedSince : (Item.lastChange as string);
      return { version, at: timeOfVersion(version) };
    },

    async firstDelivery(orgIds, version) {
      const times: string[] = [];
      for (const orgId of orgIds) {
        const { Items = [] } = await db.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
            ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk, '#id': 'id' },
            ExpressionAttributeValues: { ':pk': key.webhooks.PK, ':prefix': key.webhooks.prefix(orgId) },
            ProjectionExpression: '#id',
          }),
        );
        const delivered = await Promise.all(
          Items.map((hook) => firstDeliveryOfHook(hook.id as string, orgId, version)),
        );
        times.push(...delivered.filter((time) => time !== undefined));
      }
      return times.sort()[0];
    },

    /** Filled in by the TAXII collection, which records when a key entered it; until then no key is in it. */
    taxiiAddedAt: async () => undefined,
  };
};
