import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AssetType } from '../domain/asset-types.ts';
import { LOG_TIMING } from '../domain/check/verdicts.ts';
import {
  type DeliveryStatus,
  MAX_WEBHOOKS_PER_ORGANIZATION,
  type Webhook,
  type WebhookEvent,
  type WebhookEventRecord,
} from '../domain/webhooks.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { changeWriter, claim, record, refuse, release } from './change-set.ts';
import { ATTR, key } from './keys.ts';
import { readLogFrom, type VerdictOrigin } from './verdict-log.ts';

export type Delivery = {
  id: string;
  hookId: string;
  orgId: string;
  sort: string;
  event: string;
  eventId: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  createdAt: string;
  updatedAt: string;
  /** No attempt starts before this time (epoch ms): the lease of the attempt under way, or the backoff of the next. */
  notBefore: number;
};

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

export interface DeliveryStore {
  /** Records the event for the webhook once: false when it was recorded before (the same event id). */
  createDelivery(
    hook: Pick<Webhook, 'id' | 'orgId'>,
    event: WebhookEventRecord,
    now: number,
  ): Promise<Delivery | undefined>;
  /** Takes the delivery for one attempt (counted), unless it is finished or another attempt holds it. */
  claim(hookId: string, sort: string, now: number, leaseMs: number): Promise<Delivery | undefined>;
  /** Records the outcome of the attempt `claimed` made: SUCCESS or FAILURE end it, PENDING schedules the next. */
  record(
    claimed: Delivery,
    outcome: { status: 'SUCCESS' | 'FAILURE' | 'PENDING'; responseStatus: number | null; notBefore: number },
    now: number,
  ): Promise<void>;
  listDeliveries(
    hookId: string,
    limit: number,
    after?: string,
  ): Promise<{ deliveries: Delivery[]; next: string | undefined }>;
  /** The sort keys of the webhook's deliveries not yet finished, oldest first. */
  openDeliveries(hookId: string): Promise<string[]>;
}

export interface ChangeLogReader {
  /** Every verdict-log entry from `from` (inclusive) until now and the settle window ahead. */
  readFrom(from: string): Promise<LoggedChange[]>;
  cursor(): Promise<string | undefined>;
  saveCursor(position: string): Promise<void>;
}

const toWebhook = (item: Record<string, unknown>): Webhook => ({
  id: item.id as string,
  orgId: item.orgId as string,
  url: item.url as string,
  description: (item.description as string | null | undefined) ?? null,
  events: item.events as WebhookEvent[],
  headers: (item.headers as Record<string, string> | undefined) ?? {},
  enabled: item.enabled as boolean,
  createdAt: item.createdAt as string,
  sealedSecret: item.sealedSecret as string,
});

const toDelivery = (item: Record<string, unknown>): Delivery => ({
  id: item.id as string,
  hookId: item.hookId as string,
  orgId: item.orgId as string,
  sort: item[ATTR.sk] as string,
  event: item.event as string,
  eventId: item.eventId as string,
  body: item.body as string,
  status: item.status as DeliveryStatus,
  attempts: item.attempts as number,
  responseStatus: (item.responseStatus as number | null | undefined) ?? null,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  notBefore: item.notBefore as number,
});

const deliveryIdOf = (hookId: string, eventId: string): string =>
  `dlv_${createHash('sha256').update(`${hookId}\u0000${eventId}`).digest('hex').slice(0, 24)}`;

/** Delivery records expire with the verdict log they came from. */
const DELIVERY_RETENTION_MS = LOG_TIMING.retentionMs;

export const webhookRepository = (db: DynamoDBDocumentClient, TableName: string): WebhookStore & DeliveryStore => {
  const query = async (prefix: string): Promise<Webhook[]> => {
    const hooks: Webhook[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
          ExpressionAttributeValues: { ':pk': key.webhooks.PK, ':prefix': prefix },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      hooks.push(...(page.Items ?? []).map(toWebhook));
      start = page.LastEvaluatedKey;
    } while (start);
    return hooks;
  };

  const changes = changeWriter(db, TableName);
  return {
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
        claim(key.webhook(hook.orgId, hook.id), { entity: 'WEBHOOK', ...hook }),
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

    async createDelivery(hook, event, now) {
      const sort = `${event.position}#${event.eventId}`;
      const at = new Date(now).toISOString();
      const delivery: Delivery = {
        id: deliveryIdOf(hook.id, event.eventId),
        hookId: hook.id,
        orgId: hook.orgId,
        sort,
        event: event.type,
        eventId: event.eventId,
        body: event.body,
        status: 'PENDING',
        attempts: 0,
        responseStatus: null,
        createdAt: at,
        updatedAt: at,
        notBefore: 0,
      };
      const { sort: _, ...stored } = delivery;
      const outcome = await changes.commit(() => [
        claim(
          key.webhookDelivery(hook.id, sort),
          {
            entity: 'WEBHOOK_DELIVERY',
            ...stored,
            [ATTR.ttl]: Math.ceil((now + DELIVERY_RETENTION_MS) / 1000),
          },
          refuse('exists'),
        ),
        record({
          Put: {
            Item: {
              ...key.webhookOpen(hook.id, sort),
              entity: 'WEBHOOK_OPEN',
              // The marker of a deleted webhook's delivery, which no worker finishes, goes with the delivery.
              [ATTR.ttl]: Math.ceil((now + DELIVERY_RETENTION_MS) / 1000),
            },
          },
        }),
      ]);
      return outcome.committed ? delivery : undefined;
    },

    async claim(hookId, sort, now, leaseMs) {
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName,
            Key: key.webhookDelivery(hookId, sort),
            UpdateExpression: 'SET #status = :inProgress, #notBefore = :lease, #updatedAt = :at ADD #attempts :one',
            ConditionExpression: '#status IN (:pending, :inProgress) AND #notBefore <= :now',
            ExpressionAttributeNames: {
              '#status': 'status',
              '#notBefore': 'notBefore',
              '#updatedAt': 'updatedAt',
              '#attempts': 'attempts',
            },
            ExpressionAttributeValues: {
              ':inProgress': 'IN_PROGRESS',
              ':pending': 'PENDING',
              ':lease': now + leaseMs,
              ':now': now,
              ':at': new Date(now).toISOString(),
              ':one': 1,
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toDelivery(Attributes as Record<string, unknown>);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },

    async record(claimed, outcome, now) {
      const update = {
        TableName,
        Key: key.webhookDelivery(claimed.hookId, claimed.sort),
        UpdateExpression:
          'SET #status = :status, #responseStatus = :responseStatus, #notBefore = :notBefore, #updatedAt = :at',
        // Only the attempt that claimed it records: one whose lease ran out and was taken over does not.
        ConditionExpression: '#status = :inProgress AND #attempts = :attempts',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#responseStatus': 'responseStatus',
          '#notBefore': 'notBefore',
          '#updatedAt': 'updatedAt',
          '#attempts': 'attempts',
        },
        ExpressionAttributeValues: {
          ':status': outcome.status,
          ':responseStatus': outcome.responseStatus,
          ':notBefore': outcome.notBefore,
          ':at': new Date(now).toISOString(),
          ':inProgress': 'IN_PROGRESS',
          ':attempts': claimed.attempts,
        },
      };
      try {
        if (outcome.status === 'PENDING') {
          await db.send(new UpdateCommand(update));
          return;
        }
        await changes.commit(() => [
          record({ Update: update }, refuse('superseded')),
          release(key.webhookOpen(claimed.hookId, claimed.sort)),
        ]);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    async listDeliveries(hookId, limit, after) {
      const page = await db.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': ATTR.pk },
          ExpressionAttributeValues: { ':pk': key.webhookDeliveryPartition(hookId) },
          ScanIndexForward: false,
          Limit: limit,
          ...(after === undefined ? {} : { ExclusiveStartKey: key.webhookDelivery(hookId, after) }),
        }),
      );
      const last = page.LastEvaluatedKey?.[ATTR.sk];
      return { deliveries: (page.Items ?? []).map(toDelivery), next: typeof last === 'string' ? last : undefined };
    },

    async openDeliveries(hookId) {
      const sorts: string[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': ATTR.pk },
            ExpressionAttributeValues: { ':pk': key.webhookOpenPartition(hookId) },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) sorts.push(item[ATTR.sk] as string);
        start = page.LastEvaluatedKey;
      } while (start);
      return sorts;
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
