import { randomBytes } from 'node:crypto';
import type { Delivery, DeliveryStore, WebhookStore } from '../db/webhook-repository.ts';
import type { SecretSealer } from '../db/webhook-secrets.ts';
import {
  newWebhookId,
  newWebhookSecret,
  type StoredHeaders,
  standardWebhooksSecretOf,
  URL_REFUSED,
  type Webhook,
  type WebhookEvent,
  webhookView,
} from '../domain/webhooks/webhooks.ts';
import { checkUrl, type EgressPolicy, EgressRefusedError, type Resolver } from '../egress/index.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { type Enqueue, testEvent } from './dispatch.ts';

export type ManageDeps = {
  hooks: WebhookStore;
  deliveries: Pick<DeliveryStore, 'createDelivery' | 'listDeliveries'>;
  sealer: SecretSealer;
  receivers: { policy: EgressPolicy; resolve: Resolver };
  enqueue: Enqueue;
  now: () => number;
};

export type NewWebhook = {
  url: string;
  description?: string;
  events: WebhookEvent[];
  headers?: Record<string, string>;
};

/** The fixed headers as stored: their values sealed together, like the secret; nothing when there are none. */
export const sealHeaders = async (
  sealer: Pick<SecretSealer, 'seal'>,
  headers: Record<string, string> | undefined,
): Promise<StoredHeaders | undefined> =>
  headers === undefined || Object.keys(headers).length === 0
    ? undefined
    : { sealed: await sealer.seal(JSON.stringify(headers)) };

/** `POST /webhook/config`: the secret is in this answer and no other. */
export const createWebhook = async (
  deps: Pick<ManageDeps, 'hooks' | 'sealer' | 'receivers' | 'now'>,
  orgId: string,
  input: NewWebhook,
) => {
  const url = await checkUrl(input.url, deps.receivers.policy, deps.receivers.resolve).catch((error: unknown) => {
    if (error instanceof EgressRefusedError) throw new BadRequestError(URL_REFUSED, { cause: error });
    throw error;
  });
  const secret = newWebhookSecret();
  const hook: Webhook = {
    id: newWebhookId(),
    orgId,
    url: url.href,
    description: input.description ?? null,
    events: input.events,
    headers: await sealHeaders(deps.sealer, input.headers),
    enabled: true,
    createdAt: new Date(deps.now()).toISOString(),
    sealedSecret: await deps.sealer.seal(secret),
  };
  await deps.hooks.create(hook);
  return { ...webhookView(hook), secret, standardWebhooksSecret: standardWebhooksSecretOf(secret) };
};

const found = async (deps: Pick<ManageDeps, 'hooks'>, orgId: string, id: string): Promise<Webhook> => {
  const hook = await deps.hooks.find(orgId, id);
  if (!hook) throw new NotFoundError('Webhook not found');
  return hook;
};

export const listWebhooks = async (deps: Pick<ManageDeps, 'hooks'>, orgId: string) => ({
  webhooks: (await deps.hooks.list(orgId)).map(webhookView),
});

export const updateWebhook = async (
  deps: Pick<ManageDeps, 'hooks'>,
  orgId: string,
  id: string,
  changes: { enabled?: boolean; events?: WebhookEvent[]; description?: string },
) => webhookView(await deps.hooks.update(orgId, id, changes));

export const deleteWebhook = async (deps: Pick<ManageDeps, 'hooks'>, orgId: string, id: string) => {
  await deps.hooks.remove(orgId, id);
  return { success: true, id };
};

const deliveryView = (delivery: Delivery) => ({
  id: delivery.id,
  event: delivery.event,
  status: delivery.status,
  attempts: delivery.attempts,
  responseStatus: delivery.responseStatus,
  createdAt: delivery.createdAt,
  updatedAt: delivery.updatedAt,
});

/** `POST /webhook/config/{id}/test`: a `debug.test` delivery, queued like any other. */
export const sendTestEvent = async (
  deps: Pick<ManageDeps, 'hooks' | 'deliveries' | 'enqueue' | 'now'>,
  orgId: string,
  id: string,
) => {
  const hook = await found(deps, orgId, id);
  const delivery = await deps.deliveries.createDelivery(
    hook,
    testEvent(deps.now(), randomBytes(8).toString('hex')),
    deps.now(),
  );
  if (!delivery) throw new Error('A new test event collided with an existing one');
  await deps.enqueue(delivery);
  return deliveryView(delivery);
};

/**
 * Page tokens carry the key of the delivery record the last delivery shown is in, and how many of
 * its events are still to show; they only ever page within the caller's own webhook.
 */
const SORT_PATTERN = /^\d{13}[-0-9a-f.]*#evt_[0-9a-f]{32}\/\d{1,4}$/;
const encodePage = (sort: string): string => Buffer.from(sort, 'utf8').toString('base64url');
const decodePage = (token: string): string => {
  const sort = Buffer.from(token, 'base64url').toString('utf8');
  if (!SORT_PATTERN.test(sort)) throw new BadRequestError('next_page is not a valid page token');
  return sort;
};

export const listDeliveries = async (
  deps: Pick<ManageDeps, 'hooks' | 'deliveries'>,
  orgId: string,
  id: string,
  page: { perPage: number; nextPage?: string },
) => {
  await found(deps, orgId, id);
  const after = page.nextPage === undefined ? undefined : decodePage(page.nextPage);
  const { deliveries, next } = await deps.deliveries.listDeliveries(id, page.perPage, after);
  return { deliveries: deliveries.map(deliveryView), next_page: next === undefined ? null : encodePage(next) };
};
