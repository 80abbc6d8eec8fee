import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetType } from '../domain/allowlist/asset-types.ts';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import {
  MAX_WEBHOOKS_PER_ORGANIZATION,
  type StoredHeaders,
  type Webhook,
  type WebhookEvent,
} from '../domain/webhooks/webhooks.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { toRecord } from './activity-repository.ts';
import { queryPages } from './batch.ts';
import { changeWriter, claim, record, refuse } from './change-set.ts';
import { type DeliveryStore, deliveryRepository } from './delivery-repository.ts';
import { ACTIVITY_INDEX, ATTR, assetPartition, key } from './keys.ts';
import type { VerdictOrigin } from './verdict-change.ts';
import { readLogFrom } from './verdict-log.ts';
import type { SecretSealer } from './webhook-secrets.ts';

export type {
  Delivery,
  DeliveryBatch,
  DeliveryEvent,
  DeliveryStore,
  DetectionFeedEntry,
  GeneratorState,
  NewBatch,
} from './delivery-repository.ts';

/** A verdict-log entry as the event generator reads it. */
export type LoggedChange = {
  key: string;
  type: AssetType | undefined;
  bits: number;
  previousBits: number;
  version: string;
  changedAt: string;
  origins: VerdictOrigin[];
};

export type WebhookChanges = Partial<Pick<Webhook, 'enabled' | 'events' | 'description'>>;

export interface WebhookStore {
  create(hook: Webhook): Promise<void>;
  list(orgId: string): Promise<Webhook[]>;
  /** Every organization's webhooks: what the event generator matches changes against. */
  listAll(): Promise<Webhook[]>;
  find(orgId: string, id: string): Promise<Webhook | undefined>;
  update(orgId: string, id: string, changes: WebhookChanges): Promise<Webhook>;
  remove(orgId: string, id: string): Promise<void>;
}

export interface ChangeLogReader {
  /** Every verdict-log entry from `from` (inclusive) until now and the settle window ahead. */
  readFrom(from: string): Promise<LoggedChange[]>;
  cursor(): Promise<string | undefined>;
  saveCursor(position: string): Promise<void>;
}

/** Sealed header values (`sealedHeaders`), or the clear `headers` map of an item written before they were sealed. */
const storedHeaders = (item: Record<string, unknown>): StoredHeaders | undefined => {
  if (typeof item.sealedHeaders === 'string') return { sealed: item.sealedHeaders };
  const clear = item.headers as Record<string, string> | undefined;
  return clear && Object.keys(clear).length > 0 ? { clear } : undefined;
};

const toWebhook = (item: Record<string, unknown>): Webhook => ({
  id: item.id as string,
  orgId: item.orgId as string,
  url: item.url as string,
  description: (item.description as string | null | undefined) ?? null,
  events: item.events as WebhookEvent[],
  headers: storedHeaders(item),
  enabled: item.enabled as boolean,
  createdAt: item.createdAt as string,
  sealedSecret: item.sealedSecret as string,
});

/** The item of a webhook: header values only ever sealed (a webhook is created with sealed ones). */
const itemOf = ({ headers, ...hook }: Webhook): Record<string, unknown> => {
  if (headers !== undefined && 'clear' in headers) throw new Error('Webhook header values are stored sealed only');
  return headers === undefined ? hook : { ...hook, sealedHeaders: headers.sealed };
};

/** Every record of a content (threats, takedowns: not reports) of every organization, page after page. */
export const assetRecordsReader = (db: DynamoDBDocumentClient, TableName: string) => ({
  async allByAsset(assetId: number): Promise<ActivityRecord[]> {
    const { name, partitionKey } = ACTIVITY_INDEX.byAsset;
    const records: ActivityRecord[] = [];
    for await (const items of queryPages(db, {
      TableName,
      IndexName: name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': partitionKey },
      ExpressionAttributeValues: { ':pk': assetPartition(assetId) },
    })) {
      records.push(...items.map(toRecord));
    }
    return records;
  },
});

export const webhookRepository = (db: DynamoDBDocumentClient, TableName: string): WebhookStore & DeliveryStore => {
  const query = async (prefix: string): Promise<Webhook[]> => {
    const hooks: Webhook[] = [];
    for await (const items of queryPages(db, {
      TableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
      ExpressionAttributeValues: { ':pk': key.webhooks.PK, ':prefix': prefix },
      ConsistentRead: true,
    })) {
      hooks.push(...items.map(toWebhook));
    }
    return hooks;
  };

  const changes = changeWriter(db, TableName);
  return {
    ...deliveryRepository(db, TableName),
    async create(hook) {
      const outcome = await changes.commit(() => [
        record(
          {
            Update: {
              Key: key.webhookCount(hook.orgId),
              UpdateExpression: 'ADD #count :one',
              ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
              ExpressionAttributeNames: { '#count': 'count' },
              ExpressionAttributeValues: { ':one': 1, ':max': MAX_WEBHOOKS_PER_ORGANIZATION },
            },
          },
          refuse('full'),
        ),
        claim(key.webhook(hook.orgId, hook.id), { entity: 'WEBHOOK', ...itemOf(hook) }),
      ]);
      if (!outcome.committed) {
        throw new BadRequestError(`An organization can have at most ${MAX_WEBHOOKS_PER_ORGANIZATION} webhooks`);
      }
    },

    list: (orgId) => query(key.webhooks.prefix(orgId)),
    listAll: () => query(key.webhooks.prefix()),

    async find(orgId, id) {
      const { Item } = await db.send(new GetCommand({ TableName, Key: key.webhook(orgId, id), ConsistentRead: true }));
      return Item === undefined ? undefined : toWebhook(Item);
    },

    async update(orgId, id, changes) {
      const sets = Object.entries(changes).filter(([, value]) => value !== undefined);
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName,
            Key: key.webhook(orgId, id),
            UpdateExpression:
              sets.length === 0 ? 'SET #pk = #pk' : `SET ${sets.map(([name]) => `#${name} = :${name}`).join(', ')}`,
            ConditionExpression: 'attribute_exists(#pk)',
            ExpressionAttributeNames: {
              '#pk': ATTR.pk,
              ...Object.fromEntries(sets.map(([name]) => [`#${name}`, name])),
            },
            ...(sets.length === 0
              ? {}
              : { ExpressionAttributeValues: Object.fromEntries(sets.map(([name, value]) => [`:${name}`, value])) }),
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toWebhook(Attributes as Record<string, unknown>);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException)
          throw new NotFoundError('Webhook not found', { cause: error });
        throw error;
      }
    },

    async remove(orgId, id) {
      const outcome = await changes.commit(() => [
        record(
          {
            Delete: {
              Key: key.webhook(orgId, id),
              ConditionExpression: 'attribute_exists(#pk)',
              ExpressionAttributeNames: { '#pk': ATTR.pk },
            },
          },
          refuse('missing'),
        ),
        record({
          Update: {
            Key: key.webhookCount(orgId),
            UpdateExpression: 'ADD #count :minusOne',
            ConditionExpression: '#count > :zero',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
          },
        }),
      ]);
      if (!outcome.committed) throw new NotFoundError('Webhook not found');
    },
  };
};

/** The verdict log as the event generator reads it (with each change's previous state and origins), and its position. */
export const changeLogReader = (
  db: DynamoDBDocumentClient,
  TableName: string,
  now: () => number = Date.now,
): ChangeLogReader => ({
  readFrom: (from) => readLogFrom(db, TableName, from, now()),

  async cursor() {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.webhookCursor, ConsistentRead: true }));
    return Item?.position as string | undefined;
  },

  async saveCursor(position) {
    try {
      await db.send(
        new PutCommand({
          TableName,
          Item: { ...key.webhookCursor, position },
          // Never back: two generators (a slow and a fast one) leave the furthest position.
          ConditionExpression: 'attribute_not_exists(#position) OR #position < :position',
          ExpressionAttributeNames: { '#position': 'position' },
          ExpressionAttributeValues: { ':position': position },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },
});

/**
 * `npm run admin -- migrate webhooks`: seals the fixed header values of webhooks created before
 * they were stored sealed, and drops the clear ones. An item changed meanwhile is left for the next
 * run; a second run writes nothing.
 */
export const sealClearWebhookHeaders = async (
  db: DynamoDBDocumentClient,
  TableName: string,
  sealer: Pick<SecretSealer, 'seal'>,
): Promise<{ webhooks: number; rewritten: number; changedMeanwhile: number }> => {
  const totals = { webhooks: 0, rewritten: 0, changedMeanwhile: 0 };
  for await (const items of queryPages(db, {
    TableName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
    ExpressionAttributeValues: { ':pk': key.webhooks.PK, ':prefix': key.webhooks.prefix() },
    ConsistentRead: true,
  })) {
    for (const item of items) {
      totals.webhooks++;
      const clear = item.headers as Record<string, string> | undefined;
      if (clear === undefined) continue;
      const sealed = Object.keys(clear).length === 0 ? undefined : await sealer.seal(JSON.stringify(clear));
      try {
        await db.send(
          new UpdateCommand({
            TableName,
            Key: { [ATTR.pk]: item[ATTR.pk], [ATTR.sk]: item[ATTR.sk] },
            UpdateExpression: sealed === undefined ? 'REMOVE #headers' : 'SET #sealed = :sealed REMOVE #headers',
            ConditionExpression: '#headers = :clear AND attribute_not_exists(#sealed)',
            ExpressionAttributeNames: { '#headers': 'headers', '#sealed': 'sealedHeaders' },
            ExpressionAttributeValues: { ':clear': clear, ...(sealed === undefined ? {} : { ':sealed': sealed }) },
          }),
        );
        totals.rewritten++;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        totals.changedMeanwhile++;
      }
    }
  }
  return totals;
};
