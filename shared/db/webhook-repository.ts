import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AssetType } from '../domain/allowlist/asset-types.ts';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import { LOG_TIMING, positionAt, timeOf } from '../domain/verdict-feed/index.ts';
import {
  type DeliveryStatus,
  MAX_WEBHOOKS_PER_ORGANIZATION,
  type StoredHeaders,
  type Webhook,
  type WebhookEvent,
  type WebhookEventRecord,
} from '../domain/webhooks/webhooks.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { toRecord } from './activity-repository.ts';
import { queryPages } from './batch.ts';
import { type Change, changeWriter, claim, record, refuse, release } from './change-set.ts';
import { ACTIVITY_INDEX, ATTR, assetPartition, key } from './keys.ts';
import { readLogFrom, type VerdictOrigin } from './verdict-log.ts';
import type { SecretSealer } from './webhook-secrets.ts';

/** One event of one webhook as its delivery log shows it. */
export type Delivery = {
  id: string;
  hookId: string;
  orgId: string;
  /** The delivery record the event is kept in (see `DeliveryBatch`). */
  sort: string;
  event: string;
  eventId: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  createdAt: string;
  updatedAt: string;
};

export type DeliveryEvent = Omit<Delivery, 'hookId' | 'orgId' | 'sort'>;

/**
 * One delivery record: events of one webhook, in the order they are sent, made by one poll of
 * the event generator (or one test event). Events before `next` are finished; `claims` counts the
 * attempts taken on the record, so only the attempt that claimed it last may record an outcome.
 */
export type DeliveryBatch = {
  hookId: string;
  orgId: string;
  sort: string;
  events: DeliveryEvent[];
  next: number;
  claims: number;
  /** No attempt starts before this time (epoch ms): the lease of the attempt under way, or the backoff of the next. */
  notBefore: number;
};

/**
 * What the event generator has recorded: every entry (verdict change, new detection) before
 * `position`, and the entries at or after it named in `done` (`<entry>` for all its events,
 * `<entry>>hookId` for the events of one webhook, when one entry's events were split over commits).
 */
export type GeneratorState = { rev: number; position: string; done: ReadonlySet<string> };

export type NewBatch = { hook: Pick<Webhook, 'id' | 'orgId'>; events: readonly WebhookEventRecord[] };

/** A detection recorded at `sort` (its recording time, organization and id). */
export type DetectionFeedEntry = { sort: string; orgId: string; detectionId: number; recordedAt: string };

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
  /** Records one event for the webhook in a record of its own: undefined when it was recorded before (the same event id). */
  createDelivery(
    hook: Pick<Webhook, 'id' | 'orgId'>,
    event: WebhookEventRecord,
    now: number,
  ): Promise<Delivery | undefined>;
  generatorState(): Promise<GeneratorState>;
  /**
   * One transaction: the delivery records (one per batch) and the generator's state after them,
   * on the condition that the state is still `expected`. Undefined, recording nothing, when
   * another generator recorded first.
   */
  commitEvents(
    expected: GeneratorState,
    batches: readonly NewBatch[],
    next: { position: string; done: readonly string[] },
    now: number,
  ): Promise<{ state: GeneratorState; sorts: string[] } | undefined>;
  /** Takes the record for one attempt (counted on its first unfinished event), unless it is finished or another attempt holds it. */
  claim(hookId: string, sort: string, now: number, leaseMs: number): Promise<DeliveryBatch | undefined>;
  /** Records what the attempt that claimed `claimed` did: the events' outcomes, the first unfinished one, when to go on. */
  record(
    claimed: DeliveryBatch,
    outcome: { events: readonly DeliveryEvent[]; next: number; notBefore: number },
  ): Promise<void>;
  /** Newest first; `after` is the `next` of the page before. */
  listDeliveries(
    hookId: string,
    limit: number,
    after?: string,
  ): Promise<{ deliveries: Delivery[]; next: string | undefined }>;
  /** The sort keys of the webhook's delivery records not yet finished, oldest first. */
  openDeliveries(hookId: string): Promise<string[]>;
  /** The detections recorded from `from` (inclusive) until now and the settle window ahead. */
  detectionFeed(from: string): Promise<DetectionFeedEntry[]>;
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

/** Claims of a delivery written before records held several events: never claimed again, shown as they were left. */
const LEGACY_CLAIMS = -1;

const toBatch = (item: Record<string, unknown>): DeliveryBatch => {
  const base = { hookId: item.hookId as string, orgId: item.orgId as string, sort: item[ATTR.sk] as string };
  if (item.events === undefined) {
    const event = {
      id: item.id as string,
      event: item.event as string,
      eventId: item.eventId as string,
      body: item.body as string,
      status: item.status as DeliveryStatus,
      attempts: item.attempts as number,
      responseStatus: (item.responseStatus as number | null | undefined) ?? null,
      createdAt: item.createdAt as string,
      updatedAt: item.updatedAt as string,
    };
    return { ...base, events: [event], next: 0, claims: LEGACY_CLAIMS, notBefore: item.notBefore as number };
  }
  return {
    ...base,
    events: (item.events as DeliveryEvent[]).map((event) => ({
      ...event,
      responseStatus: event.responseStatus ?? null,
    })),
    next: item.next as number,
    claims: item.claims as number,
    notBefore: item.notBefore as number,
  };
};

const viewOf = (batch: Pick<DeliveryBatch, 'hookId' | 'orgId' | 'sort'>, event: DeliveryEvent): Delivery => ({
  hookId: batch.hookId,
  orgId: batch.orgId,
  sort: batch.sort,
  ...event,
});

const deliveryIdOf = (hookId: string, eventId: string): string =>
  `dlv_${createHash('sha256').update(`${hookId}\u0000${eventId}`).digest('hex').slice(0, 24)}`;

/** Delivery records expire with the verdict log they came from. */
const DELIVERY_RETENTION_MS = LOG_TIMING.retentionMs;

/** Entries of the generator's `done` list, in one string attribute. Versions and feed positions never contain it. */
const DONE_SEPARATOR = ',';
/** The partition (an hour, as the verdict log's) of a detection recorded at `ms`. */
const hourOf = (ms: number): number => Math.floor(ms / LOG_TIMING.bucketMs) * LOG_TIMING.bucketMs;

/** A new delivery record: its key is its first event's position and id, so the same events make the same key. */
const newBatch = ({ hook, events }: NewBatch, now: number): DeliveryBatch => {
  const first = events[0] as WebhookEventRecord;
  const at = new Date(now).toISOString();
  return {
    hookId: hook.id,
    orgId: hook.orgId,
    sort: `${first.position}#${first.eventId}`,
    events: events.map((event) => ({
      id: deliveryIdOf(hook.id, event.eventId),
      event: event.type,
      eventId: event.eventId,
      body: event.body,
      status: 'PENDING',
      attempts: 0,
      responseStatus: null,
      createdAt: at,
      updatedAt: at,
    })),
    next: 0,
    claims: 0,
    notBefore: 0,
  };
};

/** The record and its open marker (the marker of a deleted webhook's record, which no worker finishes, expires with it). */
const batchWrites = (batch: DeliveryBatch, now: number, onlyNew: boolean): Change<'exists'>[] => {
  const expires = Math.ceil((now + DELIVERY_RETENTION_MS) / 1000);
  const { sort, ...stored } = batch;
  const item = {
    ...key.webhookDelivery(batch.hookId, sort),
    entity: 'WEBHOOK_DELIVERY',
    ...stored,
    [ATTR.ttl]: expires,
  };
  return [
    onlyNew ? claim(key.webhookDelivery(batch.hookId, sort), item, refuse('exists')) : record({ Put: { Item: item } }),
    record({ Put: { Item: { ...key.webhookOpen(batch.hookId, sort), entity: 'WEBHOOK_OPEN', [ATTR.ttl]: expires } } }),
  ];
};

/**
 * The item that announces a new detection to the webhook generator, for the detection's own
 * transaction (so it exists exactly when the detection does). Stamped just before the commit,
 * like a verdict-log entry, so a reader that re-reads the log's settle window sees it.
 */
export const detectionFeedPut = (orgId: string, detectionId: number, now: number = Date.now()) => ({
  Put: {
    Item: {
      ...key.detectionFeed(positionAt(hourOf(now)), positionAt(now), orgId, detectionId),
      entity: 'DETECTION_FEED',
      orgId,
      detectionId,
      recordedAt: new Date(now).toISOString(),
      [ATTR.ttl]: Math.ceil((now + LOG_TIMING.retentionMs) / 1000),
    },
  },
});

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

    async createDelivery(hook, event, now) {
      const batch = newBatch({ hook, events: [event] }, now);
      const outcome = await changes.commit(() => batchWrites(batch, now, true));
      return outcome.committed ? viewOf(batch, batch.events[0] as DeliveryEvent) : undefined;
    },

    async generatorState() {
      const { Item } = await db.send(new GetCommand({ TableName, Key: key.webhookGenerator, ConsistentRead: true }));
      if (Item === undefined) return { rev: 0, position: '', done: new Set<string>() };
      const done = (Item.done as string | undefined) ?? '';
      return {
        rev: Item.rev as number,
        position: Item.position as string,
        done: new Set(done === '' ? [] : done.split(DONE_SEPARATOR)),
      };
    },

    async commitEvents(expected, batches, next, now) {
      const built = batches.map((batch) => newBatch(batch, now));
      const rev = expected.rev + 1;
      const outcome = await changes.commit<'exists' | 'moved'>(() => [
        record(
          {
            Put: {
              Item: { ...key.webhookGenerator, rev, position: next.position, done: next.done.join(DONE_SEPARATOR) },
              ConditionExpression: expected.rev === 0 ? 'attribute_not_exists(#rev)' : '#rev = :rev',
              ExpressionAttributeNames: { '#rev': 'rev' },
              ...(expected.rev === 0 ? {} : { ExpressionAttributeValues: { ':rev': expected.rev } }),
            },
          },
          refuse('moved'),
        ),
        ...built.flatMap((batch) => batchWrites(batch, now, false)),
      ]);
      if (!outcome.committed) return undefined;
      return {
        state: { rev, position: next.position, done: new Set(next.done) },
        sorts: built.map((batch) => batch.sort),
      };
    },

    async claim(hookId, sort, now, leaseMs) {
      const names = {
        '#notBefore': 'notBefore',
        '#claims': 'claims',
        '#next': 'next',
        '#events': 'events',
        '#status': 'status',
        '#attempts': 'attempts',
        '#updatedAt': 'updatedAt',
      };
      const values = (next: number) => ({
        ':lease': now + leaseMs,
        ':next': next,
        ':one': 1,
        ':inProgress': 'IN_PROGRESS',
        ':at': new Date(now).toISOString(),
      });
      const take = (next: number) =>
        `SET #notBefore = :lease, #claims = #claims + :one, #events[${next}].#status = :inProgress, ` +
        `#events[${next}].#attempts = #events[${next}].#attempts + :one, #events[${next}].#updatedAt = :at`;
      // Most claims are of a record whose first event is unfinished: one conditional update takes it.
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName,
            Key: key.webhookDelivery(hookId, sort),
            UpdateExpression: take(0),
            ConditionExpression: '#next = :next AND size(#events) > :next AND #claims >= :zero AND #notBefore <= :now',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...values(0), ':zero': 0, ':now': now },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toBatch(Attributes as Record<string, unknown>);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      // Otherwise (a later event is next, or it is held, due later, finished or missing) it is read first.
      const { Item } = await db.send(
        new GetCommand({ TableName, Key: key.webhookDelivery(hookId, sort), ConsistentRead: true }),
      );
      if (Item === undefined) return undefined;
      const batch = toBatch(Item);
      if (batch.events[batch.next] === undefined || batch.notBefore > now || batch.claims === LEGACY_CLAIMS) {
        return undefined;
      }
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName,
            Key: key.webhookDelivery(hookId, sort),
            UpdateExpression: take(batch.next),
            ConditionExpression: '#claims = :claims AND #next = :next',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...values(batch.next), ':claims': batch.claims },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toBatch(Attributes as Record<string, unknown>);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },

    async record(claimed, outcome) {
      const update = {
        TableName,
        Key: key.webhookDelivery(claimed.hookId, claimed.sort),
        UpdateExpression: 'SET #events = :events, #next = :next, #notBefore = :notBefore',
        // Only the attempt that claimed it last records: one whose lease ran out and was taken over does not.
        ConditionExpression: '#claims = :claims',
        ExpressionAttributeNames: {
          '#events': 'events',
          '#next': 'next',
          '#notBefore': 'notBefore',
          '#claims': 'claims',
        },
        ExpressionAttributeValues: {
          ':events': outcome.events,
          ':next': outcome.next,
          ':notBefore': outcome.notBefore,
          ':claims': claimed.claims,
        },
      };
      try {
        if (outcome.next < outcome.events.length) {
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
      const deliveries: Delivery[] = [];
      let next: string | undefined;
      /** Takes the batch's events before `before`, newest first; remembers where a full page stopped. */
      const take = (batch: DeliveryBatch, before: number) => {
        for (let i = before - 1; i >= 0; i--) {
          if (deliveries.length === limit) {
            next = `${batch.sort}/${i + 1}`;
            return;
          }
          deliveries.push(viewOf(batch, batch.events[i] as DeliveryEvent));
        }
        next = `${batch.sort}/0`;
      };
      let start: Record<string, unknown> | undefined;
      if (after !== undefined) {
        const [sort, index] = after.split('/') as [string, string];
        const { Item } = await db.send(new GetCommand({ TableName, Key: key.webhookDelivery(hookId, sort) }));
        if (Item !== undefined) take(toBatch(Item), Math.min(Number(index), (Item.events as unknown[]).length));
        start = key.webhookDelivery(hookId, sort);
      }
      while (deliveries.length < limit) {
        const page = await db.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': ATTR.pk },
            ExpressionAttributeValues: { ':pk': key.webhookDeliveryPartition(hookId) },
            ScanIndexForward: false,
            Limit: limit - deliveries.length,
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
        let left = false;
        for (const item of page.Items ?? []) {
          if (deliveries.length === limit) {
            left = true;
            break;
          }
          const batch = toBatch(item);
          take(batch, batch.events.length);
        }
        start = page.LastEvaluatedKey;
        if (start === undefined) {
          // The last record was shown whole and nothing follows it.
          if (!left && next?.endsWith('/0')) next = undefined;
          break;
        }
      }
      return { deliveries, next };
    },

    async openDeliveries(hookId) {
      const sorts: string[] = [];
      for await (const items of queryPages(db, {
        TableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': ATTR.pk },
        ExpressionAttributeValues: { ':pk': key.webhookOpenPartition(hookId) },
      })) {
        for (const item of items) sorts.push(item[ATTR.sk] as string);
      }
      return sorts;
    },

    async detectionFeed(from) {
      const entries: DetectionFeedEntry[] = [];
      const last = hourOf(Date.now() + LOG_TIMING.settleMs);
      for (let bucket = hourOf(timeOf(from)); bucket <= last; bucket += LOG_TIMING.bucketMs) {
        for await (const items of queryPages(db, {
          TableName,
          KeyConditionExpression: '#pk = :pk AND #sk >= :from',
          ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
          ExpressionAttributeValues: { ':pk': key.detectionFeedPartition(positionAt(bucket)), ':from': from },
          ConsistentRead: true,
        })) {
          for (const item of items) {
            entries.push({
              sort: item[ATTR.sk] as string,
              orgId: item.orgId as string,
              detectionId: item.detectionId as number,
              recordedAt: item.recordedAt as string,
            });
          }
        }
      }
      return entries;
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
