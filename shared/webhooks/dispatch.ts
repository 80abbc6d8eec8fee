import type { ChangeLogReader, Delivery, DeliveryStore, LoggedChange, WebhookStore } from '../db/webhook-repository.ts';
import type { SecretSealer } from '../db/webhook-secrets.ts';
import type { ActivityRecord } from '../domain/activity.ts';
import { LOG_TIMING, positionAt, statusOf } from '../domain/check/verdicts.ts';
import { mapConcurrently } from '../domain/concurrency.ts';
import type { ListStore } from '../domain/lifecycle-lists.ts';
import { assetIdOf, organizationIdOf } from '../domain/reports.ts';
import {
  backoffMs,
  debugTestBody,
  eventIdOf,
  MAX_RETRIES,
  signatureOf,
  statusEscalatedBody,
  statusUpdatedBody,
  threatDetectionAddedBody,
  type Webhook,
  type WebhookEvent,
  type WebhookEventRecord,
} from '../domain/webhooks.ts';
import type { SendResult } from './sender.ts';

/** Hands a recorded delivery to the queue that attempts it. */
export type Enqueue = (delivery: Pick<Delivery, 'hookId' | 'sort'>) => void | Promise<void>;

export type GeneratorDeps = {
  hooks: Pick<WebhookStore, 'listAll'>;
  deliveries: Pick<DeliveryStore, 'createDelivery'>;
  log: ChangeLogReader;
  records: Pick<ListStore, 'byAsset'>;
  now: () => number;
};

/** Changes read, and deliveries recorded, at once by one poll. */
const CONCURRENCY = 16;
/** Records of one asset read per change: the organizations that reported it or own it as a threat. */
const RECORDS_PER_ASSET = 25;
/**
 * How long before its verdict change a review may have been stamped: the review is stamped once,
 * then its transaction may be rebuilt (and its change re-stamped) while other writers contend.
 */
const REVIEW_LEAD_MS = 60_000;

const subscribers = (hooks: readonly Webhook[], event: WebhookEvent) => {
  const byOrg = new Map<string, Webhook[]>();
  for (const hook of hooks) {
    if (!hook.enabled || !hook.events.includes(event)) continue;
    byOrg.set(hook.orgId, [...(byOrg.get(hook.orgId) ?? []), hook]);
  }
  return byOrg;
};

type Planned = { hook: Webhook; event: WebhookEventRecord };

/**
 * The events one verdict-log entry makes, for the webhooks that exist now. `asset.status-updated`
 * goes to every organization whose content it is when the entry changes the content's status:
 * the organizations that made the change (an allowlisting added or removed, a threat approved or
 * withdrawn: the entry names them) and those with records of the content (reports, threats,
 * takedowns). Once an organization allowlists content its status is ALLOWED until the last
 * allowlisting goes, and that removal names its organization, so no other organization's
 * allowlisting needs looking up. `asset.status-escalated` goes to an organization whose change
 * it was, for each of its proposals of the content approved by that change.
 */
export const eventsOfChange = async (
  deps: Pick<GeneratorDeps, 'records'>,
  change: LoggedChange,
  hooks: readonly Webhook[],
): Promise<Planned[]> => {
  const updated = subscribers(hooks, 'asset.status-updated');
  const escalated = subscribers(hooks, 'asset.status-escalated');
  const statusChanged = statusOf(change.bits) !== statusOf(change.previousBits);
  const escalating = change.origins.filter((origin) => escalated.has(origin.orgId));
  const wantsRecords = (statusChanged && updated.size > 0) || escalating.length > 0;
  if (!wantsRecords) return [];
  const serviceAssetId = assetIdOf(change.key);
  const records = await deps.records.byAsset(serviceAssetId, RECORDS_PER_ASSET);
  const planned: Planned[] = [];
  if (statusChanged) {
    const about = new Map<string, { assetId: number; content: string; type: string }>();
    for (const origin of change.origins) {
      about.set(origin.orgId, {
        assetId: origin.assetId ?? serviceAssetId,
        content: origin.content ?? change.key,
        type: change.type ?? 'URL',
      });
    }
    for (const record of records) {
      if (about.has(record.organization) || record.kind === 'report') continue;
      about.set(record.organization, {
        assetId: record.assetId ?? serviceAssetId,
        content: record.content ?? change.key,
        type: change.type ?? record.assetType ?? 'URL',
      });
    }
    for (const [orgId, asset] of about) {
      const body = statusUpdatedBody(change.changedAt, { ...asset, status: statusOf(change.bits) });
      const eventId = eventIdOf('asset.status-updated', orgId, change.version);
      for (const hook of updated.get(orgId) ?? []) {
        planned.push({ hook, event: { eventId, type: 'asset.status-updated', position: change.version, body } });
      }
    }
  }
  const changedAt = Date.parse(change.changedAt);
  for (const origin of escalating) {
    for (const record of records) {
      if (!isApprovalOf(record, origin.orgId, changedAt)) continue;
      const review = record.review as NonNullable<typeof record.review>;
      const body = statusEscalatedBody(change.changedAt, {
        assetId: record.assetId ?? serviceAssetId,
        content: record.content,
        type: record.assetType,
        proposalId: Number(record.id),
        organizationId: organizationIdOf(origin.orgId),
      });
      const eventId = eventIdOf('asset.status-escalated', origin.orgId, `${record.id}/${review.id}`);
      for (const hook of escalated.get(origin.orgId) ?? []) {
        planned.push({
          hook,
          // After the status update of the same change, among a webhook's deliveries as on the wire.
          event: { eventId, type: 'asset.status-escalated', position: `${change.version}.1`, body },
        });
      }
    }
  }
  return planned;
};

/** A proposal of `orgId` whose approval this change (stamped `changedAt`) carries. */
const isApprovalOf = (
  record: ActivityRecord,
  orgId: string,
  changedAt: number,
): record is ActivityRecord & { kind: 'threat' } => {
  if (record.kind !== 'threat' || record.organization !== orgId || record.reportId === undefined) return false;
  if (record.review?.decision !== 'APPROVE') return false;
  const reviewed = Date.parse(record.review.createdAt);
  return reviewed <= changedAt + LOG_TIMING.settleMs && reviewed >= changedAt - REVIEW_LEAD_MS;
};

export type Generator = { poll(): Promise<{ changes: number; events: number }> };

/**
 * Turns the verdict log into deliveries, exactly once per change and webhook: each delivery's
 * key is its event id (made from the change), written on the condition that it does not exist,
 * so reading a change twice (every poll re-reads the log's settle window, and a generator that
 * stopped re-reads from its saved position) records nothing twice. The log is read before the
 * webhooks, so a change committed after a webhook was created is matched with that webhook.
 */
export const eventGenerator = (deps: GeneratorDeps, enqueue: Enqueue): Generator => {
  /** Versions this generator already turned into deliveries: the settle window's re-reads skip them. */
  const seen = new Map<string, true>();
  return {
    async poll() {
      const started = deps.now();
      const settled = positionAt(started - LOG_TIMING.settleMs);
      const saved = await deps.log.cursor();
      const from = saved ?? settled;
      const changes = await deps.log.readFrom(from);
      const fresh = changes.filter((change) => !seen.has(change.version));
      let events = 0;
      if (fresh.length > 0) {
        const hooks = (await deps.hooks.listAll()).filter((hook) => hook.enabled);
        // Read and recorded side by side, queued in the log's order: each webhook's queue keeps it.
        const planned =
          hooks.length === 0
            ? []
            : (await mapConcurrently(fresh, CONCURRENCY, (change) => eventsOfChange(deps, change, hooks))).flat();
        const created = await mapConcurrently(planned, CONCURRENCY, ({ hook, event }) =>
          deps.deliveries.createDelivery(hook, event, deps.now()),
        );
        for (const delivery of created) {
          if (!delivery) continue;
          events++;
          await enqueue(delivery);
        }
        for (const change of fresh) seen.set(change.version, true);
      }
      // A first poll saves where it started, so a restart resumes there rather than at its own start.
      if (saved === undefined || settled > from) await deps.log.saveCursor(settled);
      for (const version of seen.keys()) {
        if (version >= settled) break;
        seen.delete(version);
      }
      return { changes: fresh.length, events };
    },
  };
};

/** Records one event for each of the organization's webhooks subscribed to it, and queues them. */
export const emitOrganizationEvent = async (
  deps: Pick<GeneratorDeps, 'hooks' | 'deliveries' | 'now'>,
  enqueue: Enqueue,
  orgId: string,
  event: WebhookEventRecord & { type: WebhookEvent },
): Promise<number> => {
  let created = 0;
  const hooks = (await deps.hooks.listAll()).filter(
    (hook) => hook.orgId === orgId && hook.enabled && hook.events.includes(event.type),
  );
  for (const hook of hooks) {
    const delivery = await deps.deliveries.createDelivery(hook, event, deps.now());
    if (delivery) {
      created++;
      await enqueue(delivery);
    }
  }
  return created;
};

/**
 * `organization.threat-detection-added` for a new detection result of the organization: the
 * detection's id makes the event id, so recording the same detection twice sends it once.
 */
export const threatDetectionAdded = (
  deps: Pick<GeneratorDeps, 'hooks' | 'deliveries' | 'now'>,
  enqueue: Enqueue,
  orgId: string,
  detectionResultId: number,
) => {
  const now = deps.now();
  const body = threatDetectionAddedBody(new Date(now).toISOString(), {
    organizationId: organizationIdOf(orgId),
    detectionResultId,
  });
  return emitOrganizationEvent(deps, enqueue, orgId, {
    eventId: eventIdOf('organization.threat-detection-added', orgId, String(detectionResultId)),
    type: 'organization.threat-detection-added',
    position: positionAt(now),
    body,
  });
};

/** A `debug.test` event for one webhook: a new event (and id) per request. */
export const testEvent = (now: number, nonce: string): WebhookEventRecord => ({
  eventId: eventIdOf('debug.test', nonce, String(now)),
  type: 'debug.test',
  position: positionAt(now),
  body: debugTestBody(new Date(now).toISOString()),
});

export type DeliveryDeps = {
  hooks: Pick<WebhookStore, 'find'>;
  deliveries: Pick<DeliveryStore, 'claim' | 'record'>;
  sealer: SecretSealer;
  send: (url: string, body: string, headers: Record<string, string>) => Promise<SendResult>;
  now: () => number;
  /** The first retry waits about this long, each later one twice the one before (plus jitter). */
  backoffBaseMs: number;
  /** An attempt's lease: longer than a send can take, after which another worker may take the delivery over. */
  leaseMs: number;
  random?: () => number;
};

export type AttemptOutcome =
  | { state: 'skipped' }
  | { state: 'finished'; status: 'SUCCESS' | 'FAILURE' }
  | { state: 'retry'; at: number };

/**
 * One attempt of one delivery: claim it (counting the attempt), POST it signed, record the
 * outcome. 2xx is SUCCESS; anything else is retried after a growing wait until `MAX_RETRIES`
 * retries were made, then FAILURE. A worker that dies between the send and the record leaves the
 * delivery IN_PROGRESS under a lease; once that runs out the delivery is claimed and sent again
 * with the same event id (receivers deduplicate by it).
 */
export const attemptDelivery = async (
  deps: DeliveryDeps,
  hookId: string,
  sort: string,
  onSent?: () => void,
): Promise<AttemptOutcome> => {
  const claimed = await deps.deliveries.claim(hookId, sort, deps.now(), deps.leaseMs);
  if (!claimed) return { state: 'skipped' };
  const hook = await deps.hooks.find(claimed.orgId, hookId);
  if (!hook?.enabled) {
    await deps.deliveries.record(claimed, { status: 'FAILURE', responseStatus: null, notBefore: 0 }, deps.now());
    return { state: 'finished', status: 'FAILURE' };
  }
  const secret = await deps.sealer.open(hook.sealedSecret);
  const result = await deps.send(hook.url, claimed.body, {
    ...hook.headers,
    'X-ChainPatrol-Signature': signatureOf(secret, claimed.body),
    'X-ChainPatrol-Event-Id': claimed.eventId,
    'X-ChainPatrol-Timestamp': String(Math.floor(deps.now() / 1000)),
  });
  onSent?.();
  const responseStatus = 'status' in result ? result.status : null;
  const now = deps.now();
  if (responseStatus !== null && responseStatus >= 200 && responseStatus < 300) {
    await deps.deliveries.record(claimed, { status: 'SUCCESS', responseStatus, notBefore: 0 }, now);
    return { state: 'finished', status: 'SUCCESS' };
  }
  if (claimed.attempts > MAX_RETRIES) {
    await deps.deliveries.record(claimed, { status: 'FAILURE', responseStatus, notBefore: 0 }, now);
    return { state: 'finished', status: 'FAILURE' };
  }
  const at = now + backoffMs(deps.backoffBaseMs, claimed.attempts, deps.random);
  await deps.deliveries.record(claimed, { status: 'PENDING', responseStatus, notBefore: at }, now);
  return { state: 'retry', at };
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
