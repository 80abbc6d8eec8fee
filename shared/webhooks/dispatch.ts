import type { DeliveryEvent, DeliveryStore, WebhookStore } from '../db/webhook-repository.ts';
import type { SecretSealer } from '../db/webhook-secrets.ts';
import { positionAt } from '../domain/verdict-feed/index.ts';
import {
  backoffMs,
  type DeliveryStatus,
  debugTestBody,
  eventIdOf,
  MAX_RETRIES,
  type StoredHeaders,
  signedHeaders,
  type Webhook,
  type WebhookEventRecord,
} from '../domain/webhooks/webhooks.ts';
import type { SendResult } from './sender.ts';

/** Hands a recorded delivery to the queue that attempts it. */
export type Enqueue = (delivery: { hookId: string; sort: string }) => void | Promise<void>;

/** A `debug.test` event for one webhook: a new event (and id) per request. */
export const testEvent = (now: number, nonce: string): WebhookEventRecord => ({
  eventId: eventIdOf('debug.test', nonce, String(now)),
  type: 'debug.test',
  position: positionAt(now),
  body: debugTestBody(new Date(now).toISOString()),
});

/** The fixed headers a delivery carries, opened (or as a webhook created before sealing holds them). */
export const openHeaders = async (
  sealer: Pick<SecretSealer, 'open'>,
  headers: StoredHeaders | undefined,
): Promise<Record<string, string>> => {
  if (headers === undefined) return {};
  if ('clear' in headers) return headers.clear;
  const opened = await sealer.open(headers.sealed);
  try {
    return JSON.parse(opened) as Record<string, string>;
  } catch {
    // Not the parser's message: it quotes the text, which holds the values.
    throw new Error('Sealed webhook headers did not open to a JSON object');
  }
};

export type DeliveryDeps = {
  hooks: Pick<WebhookStore, 'find'>;
  deliveries: Pick<DeliveryStore, 'claim' | 'record'>;
  sealer: SecretSealer;
  send: (url: string, body: string, headers: Record<string, string>) => Promise<SendResult>;
  now: () => number;
  /** The first retry waits about this long, each later one twice the one before (plus jitter). */
  backoffBaseMs: number;
  /** An attempt's lease: longer than `sendBudgetMs` plus one send, after which another worker may take the record over. */
  leaseMs: number;
  /** No event of a record is sent later than this after the attempt claimed it; the rest goes on in the next attempt. */
  sendBudgetMs: number;
  random?: () => number;
};

export type AttemptOutcome =
  | { state: 'skipped' }
  | { state: 'finished'; finished: DeliveryStatus[] }
  | { state: 'retry'; at: number; finished: DeliveryStatus[] };

/**
 * One attempt of one delivery record: claim it (counting an attempt of its first unfinished
 * event), POST its events signed, one after another in order, and record their outcomes. 2xx is
 * SUCCESS; anything else is retried after a growing wait (the events after it wait too) until
 * `MAX_RETRIES` retries were made, then FAILURE and the next event goes. A worker that dies
 * before it records leaves the record claimed under a lease; once that runs out it is claimed
 * and its unrecorded events are sent again with the same event ids (receivers deduplicate by them).
 */
export const attemptDelivery = async (
  deps: DeliveryDeps,
  hookId: string,
  sort: string,
  onSent?: () => void,
): Promise<AttemptOutcome> => {
  const started = deps.now();
  const claimed = await deps.deliveries.claim(hookId, sort, started, deps.leaseMs);
  if (!claimed) return { state: 'skipped' };
  const events: DeliveryEvent[] = [...claimed.events];
  const finished: DeliveryStatus[] = [];
  let next = claimed.next;
  const settle = (status: DeliveryStatus, attempts: number, responseStatus: number | null) => {
    events[next] = {
      ...(events[next] as DeliveryEvent),
      status,
      attempts,
      responseStatus,
      updatedAt: new Date(deps.now()).toISOString(),
    };
    if (status === 'SUCCESS' || status === 'FAILURE') {
      finished.push(status);
      next++;
    }
  };
  const hook = await deps.hooks.find(claimed.orgId, hookId);
  if (!hook?.enabled) {
    while (next < events.length) settle('FAILURE', (events[next] as DeliveryEvent).attempts, null);
    await deps.deliveries.record(claimed, { events, next, notBefore: 0 });
    return { state: 'finished', finished };
  }
  const secret = await deps.sealer.open(hook.sealedSecret);
  const fixedHeaders = await openHeaders(deps.sealer, hook.headers);
  let retryAt: number | undefined;
  while (next < events.length) {
    const event = events[next] as DeliveryEvent;
    // The claim counted the first event's attempt; each later one is counted as it is sent.
    const attempts = next === claimed.next ? event.attempts : event.attempts + 1;
    const result = await deps.send(hook.url, event.body, {
      ...fixedHeaders,
      ...signedHeaders(secret, event.eventId, event.body, deps.now()),
    });
    onSent?.();
    const responseStatus = 'status' in result ? result.status : null;
    const now = deps.now();
    if (responseStatus !== null && responseStatus >= 200 && responseStatus < 300) {
      settle('SUCCESS', attempts, responseStatus);
    } else if (attempts > MAX_RETRIES) {
      settle('FAILURE', attempts, responseStatus);
    } else {
      settle('PENDING', attempts, responseStatus);
      retryAt = now + backoffMs(deps.backoffBaseMs, attempts, deps.random);
      break;
    }
    if (next < events.length && now - started >= deps.sendBudgetMs) {
      retryAt = now;
      break;
    }
  }
  await deps.deliveries.record(claimed, { events, next, notBefore: retryAt ?? 0 });
  return retryAt === undefined ? { state: 'finished', finished } : { state: 'retry', at: retryAt, finished };
};

/**
 * The webhooks as a delivery worker reads them, each kept `ttlMs`: a change of a webhook (disabled,
 * deleted) reaches the deliveries under way within that time, and a busy webhook costs one read a
 * `ttlMs` instead of one per delivery.
 */
export const cachedHooks = (
  hooks: Pick<WebhookStore, 'find'>,
  ttlMs: number,
  now: () => number = Date.now,
): Pick<WebhookStore, 'find'> => {
  const cache = new Map<string, { hook: Promise<Webhook | undefined>; expires: number }>();
  return {
    find(orgId, id) {
      const key = `${orgId}/${id}`;
      const hit = cache.get(key);
      if (hit !== undefined && hit.expires > now()) return hit.hook;
      const hook = hooks.find(orgId, id);
      cache.set(key, { hook, expires: now() + ttlMs });
      hook.catch(() => cache.delete(key));
      return hook;
    },
  };
};
