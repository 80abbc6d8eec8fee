import type { VerdictOrigin } from '../db/verdict-log.ts';
import type {
  ChangeLogReader,
  DeliveryEvent,
  DeliveryStore,
  DetectionFeedEntry,
  GeneratorState,
  LoggedChange,
  NewBatch,
  WebhookStore,
} from '../db/webhook-repository.ts';
import type { SecretSealer } from '../db/webhook-secrets.ts';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import { assetIdOf, organizationIdOf } from '../domain/lifecycle/reports.ts';
import { BIT, LOG_TIMING, positionAt, statusOf, timeOf } from '../domain/verdict-feed/index.ts';
import {
  backoffMs,
  type DeliveryStatus,
  debugTestBody,
  eventIdOf,
  MAX_RETRIES,
  type StoredHeaders,
  signedHeaders,
  statusEscalatedBody,
  statusUpdatedBody,
  threatDetectionAddedBody,
  type Webhook,
  type WebhookEvent,
  type WebhookEventRecord,
} from '../domain/webhooks/webhooks.ts';
import type { SendResult } from './sender.ts';

/** Hands a recorded delivery to the queue that attempts it. */
export type Enqueue = (delivery: { hookId: string; sort: string }) => void | Promise<void>;

/** Every record (threat, takedown, report) any organization has of one content. */
export type AssetRecords = { allByAsset(assetId: number): Promise<ActivityRecord[]> };

export type GeneratorDeps = {
  hooks: Pick<WebhookStore, 'listAll'>;
  deliveries: Pick<DeliveryStore, 'generatorState' | 'commitEvents' | 'detectionFeed'>;
  log: ChangeLogReader;
  records: AssetRecords;
  now: () => number;
  /** Delivery records one transaction holds (each with its open marker, beside the generator's state): at most 49. */
  batchesPerCommit?: number;
};

/** Changes whose records are read at once by one poll. */
const CONCURRENCY = 32;
/** Log entries turned into events and recorded together: deliveries of a long backlog start after the first. */
const ENTRIES_PER_COMMIT = 400;
/** Events one delivery record holds at most (a record stays far below DynamoDB's 400 KB item size). */
const EVENTS_PER_BATCH = 100;
const BODY_BYTES_PER_BATCH = 200_000;
/** A transaction holds 100 items: the generator's state, then a delivery record and its open marker per batch. */
const MAX_BATCHES_PER_COMMIT = 49;
/** ... and 4 MB: the records' bodies, each event's other fields, and room for the state. */
const BYTES_PER_COMMIT = 3_000_000;
const EVENT_OVERHEAD_BYTES = 400;
/** With no events to record, the generator's position is still saved this often (so a restart reads little again). */
const POSITION_EVERY_MS = 10_000;
/**
 * How long the organizations named by a change of a content count as having records of it: the
 * index of records by content is eventually consistent, so a threat approved just before another
 * organization's change may not be found there yet; its own change named its organization.
 */
const ORIGIN_MEMORY_MS = 60_000;
/**
 * How long before its verdict change a review may have been stamped: the review is stamped once,
 * then its transaction may be rebuilt (and its change re-stamped) while other writers contend.
 */
const REVIEW_LEAD_MS = 60_000;

/** Runs at most `limit` tasks at once, the rest waiting in the order they were handed in. */
const pool = (limit: number) => {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next === undefined) running--;
      else next();
    }
  };
};

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
 * withdrawn: the entry names them), those with records of the content (threats, takedowns; every
 * page of them), and those that `recent` changes of the content named while it was blocked (whose
 * records the index may not show yet). Once an organization allowlists content its status is
 * ALLOWED until the last allowlisting goes, and that removal names its organization, so no other
 * organization's allowlisting needs looking up. `asset.status-escalated` goes to an organization
 * whose change it was, for each of its proposals of the content approved by that change.
 */
export const eventsOfChange = async (
  deps: Pick<GeneratorDeps, 'records'>,
  change: LoggedChange,
  hooks: readonly Webhook[],
  recent: readonly VerdictOrigin[] = [],
): Promise<Planned[]> => {
  const updated = subscribers(hooks, 'asset.status-updated');
  const escalated = subscribers(hooks, 'asset.status-escalated');
  const statusChanged = statusOf(change.bits) !== statusOf(change.previousBits);
  const escalating = change.origins.filter((origin) => escalated.has(origin.orgId));
  const named = new Set([...change.origins, ...recent].map((origin) => origin.orgId));
  const othersListen = statusChanged && [...updated.keys()].some((orgId) => !named.has(orgId));
  const needsRecords = othersListen || escalating.length > 0;
  if (!(statusChanged && updated.size > 0) && !needsRecords) return [];
  const serviceAssetId = assetIdOf(change.key);
  const records = needsRecords ? await deps.records.allByAsset(serviceAssetId) : [];
  const planned: Planned[] = [];
  if (statusChanged) {
    const about = new Map<string, { assetId: number; content: string; type: string }>();
    for (const origin of [...change.origins, ...recent]) {
      if (about.has(origin.orgId)) continue;
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

/** `organization.threat-detection-added` for each subscribed webhook of the organization whose detection it is. */
export const eventsOfDetection = (entry: DetectionFeedEntry, hooks: readonly Webhook[]): Planned[] => {
  const body = threatDetectionAddedBody(entry.recordedAt, {
    organizationId: organizationIdOf(entry.orgId),
    detectionResultId: entry.detectionId,
  });
  const event: WebhookEventRecord = {
    eventId: eventIdOf('organization.threat-detection-added', entry.orgId, String(entry.detectionId)),
    type: 'organization.threat-detection-added',
    position: positionAt(timeOf(entry.sort)),
    body,
  };
  return (subscribers(hooks, 'organization.threat-detection-added').get(entry.orgId) ?? []).map((hook) => ({
    hook,
    event,
  }));
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

/** One entry read this poll, in the order of the log: a verdict change or a new detection. */
type Entry = { at: string; change?: LoggedChange; detection?: DetectionFeedEntry };

/** A webhook's events, in order, cut into delivery records; one entry's events for a webhook stay in one record. */
const batchesOf = (planned: readonly (Planned & { entry: string })[]) => {
  const byHook = new Map<string, (Planned & { entry: string })[]>();
  for (const item of planned) {
    const list = byHook.get(item.hook.id) ?? [];
    list.push(item);
    byHook.set(item.hook.id, list);
  }
  const batches: (NewBatch & { entries: Set<string> })[] = [];
  for (const items of byHook.values()) {
    let current: (Planned & { entry: string })[] = [];
    let bytes = 0;
    const close = () => {
      if (current.length === 0) return;
      const first = current[0] as Planned;
      batches.push({
        hook: first.hook,
        events: current.map((item) => item.event),
        entries: new Set(current.map((item) => item.entry)),
      });
      current = [];
      bytes = 0;
    };
    for (const item of items) {
      const full = current.length >= EVENTS_PER_BATCH || bytes + item.event.body.length > BODY_BYTES_PER_BATCH;
      if (full && current.at(-1)?.entry !== item.entry) close();
      current.push(item);
      bytes += item.event.body.length;
    }
    close();
  }
  return batches;
};

/**
 * Turns the verdict log and the feed of new detections into delivery records, exactly once per
 * entry and webhook. The records of a group of entries are written in one transaction with the
 * generator's state (a position, and the entries after it already done), on the condition that
 * the state is what this generator read: so reading an entry twice (every poll re-reads the log's
 * settle window, a restarted generator re-reads from its saved position, two generators may run
 * at once) records nothing twice. A webhook gets one record per group, sent in order by one
 * attempt. The log is read before the webhooks, so a change committed after a webhook was created
 * is matched with that webhook.
 */
export const eventGenerator = (deps: GeneratorDeps, enqueue: Enqueue): Generator => {
  const perCommit = Math.min(MAX_BATCHES_PER_COMMIT, deps.batchesPerCommit ?? MAX_BATCHES_PER_COMMIT);
  /** Entries this generator already turned into deliveries: the settle window's re-reads skip them. */
  const seen = new Map<string, true>();
  /** Organizations named by recent changes of blocked content, by content: see `ORIGIN_MEMORY_MS`. */
  const named = new Map<string, { origin: VerdictOrigin; version: string; until: number }[]>();
  let state: GeneratorState | undefined;
  let readFrom: string | undefined;
  let cursorSavedAt = 0;

  const remember = (changes: readonly LoggedChange[], now: number) => {
    for (const [content, list] of named) {
      const live = list.filter((item) => item.until > now);
      if (live.length === 0) named.delete(content);
      else named.set(content, live);
    }
    for (const change of changes) {
      if ((change.bits & BIT.block) === 0 || change.origins.length === 0) continue;
      const list = named.get(change.key) ?? [];
      for (const origin of change.origins)
        list.push({ origin, version: change.version, until: now + ORIGIN_MEMORY_MS });
      named.set(change.key, list);
    }
  };
  const namedBefore = (change: LoggedChange): VerdictOrigin[] =>
    (named.get(change.key) ?? []).filter((item) => item.version < change.version).map((item) => item.origin);

  /**
   * Records `planned` (the events of `entries`), then the state: `position` when given, the done
   * entries otherwise. False when another generator recorded first (the state is read again).
   */
  const commit = async (
    current: GeneratorState,
    entries: readonly string[],
    planned: readonly (Planned & { entry: string })[],
    position: string,
  ): Promise<GeneratorState | undefined> => {
    const batches = batchesOf(planned);
    const groups: (typeof batches)[] = [[]];
    let bytes = 0;
    for (const batch of batches) {
      const size = batch.events.reduce((sum, event) => sum + event.body.length + EVENT_OVERHEAD_BYTES, 0);
      const group = groups.at(-1) as typeof batches;
      if (group.length > 0 && (group.length >= perCommit || bytes + size > BYTES_PER_COMMIT)) {
        groups.push([batch]);
        bytes = size;
      } else {
        group.push(batch);
        bytes += size;
      }
    }
    let at = current;
    for (const [index, group] of groups.entries()) {
      const last = index === groups.length - 1;
      // Before the last group, an entry is done only for the webhooks whose records are in.
      const added = last
        ? entries
        : group.flatMap((batch) => [...batch.entries].map((entry) => `${entry}>${batch.hook.id}`));
      const nextPosition = last && position > at.position ? position : at.position;
      const done = [...at.done, ...added].filter((entry) => entry >= nextPosition);
      const result = await deps.deliveries.commitEvents(at, group, { position: nextPosition, done }, deps.now());
      if (result === undefined) return undefined;
      at = result.state;
      for (const [i, sort] of result.sorts.entries()) {
        await enqueue({ hookId: (group[i] as NewBatch).hook.id, sort });
      }
    }
    return at;
  };

  return {
    async poll() {
      const started = deps.now();
      const settled = positionAt(started - LOG_TIMING.settleMs);
      state ??= await deps.deliveries.generatorState();
      const current = state;
      const isDone = (entry: string) => entry < current.position || current.done.has(entry) || seen.has(entry);
      // The saved position is read once: after that this generator knows how far it has read.
      if (readFrom === undefined) {
        const saved = await deps.log.cursor();
        readFrom = saved ?? settled;
        if (saved === undefined) await deps.log.saveCursor(settled);
      }
      const from = readFrom;
      const [changes, detections] = await Promise.all([
        deps.log.readFrom(from),
        deps.deliveries.detectionFeed(current.position === '' ? settled : current.position),
      ]);
      const fresh: Entry[] = [
        ...changes.filter((change) => !isDone(change.version)).map((change) => ({ at: change.version, change })),
        ...detections.filter((entry) => !isDone(entry.sort)).map((detection) => ({ at: detection.sort, detection })),
      ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
      remember(
        fresh.flatMap((entry) => (entry.change ? [entry.change] : [])),
        started,
      );
      let events = 0;
      let committed: GeneratorState | undefined = current;
      if (fresh.length > 0) {
        const hooks = (await deps.hooks.listAll()).filter((hook) => hook.enabled);
        // One content's records are read once a poll, however many of its changes the poll holds.
        const reads = new Map<number, Promise<ActivityRecord[]>>();
        const records: AssetRecords = {
          allByAsset(assetId) {
            const read = reads.get(assetId) ?? deps.records.allByAsset(assetId);
            reads.set(assetId, read);
            return read;
          },
        };
        const run = pool(CONCURRENCY);
        // Every entry's events are planned through one pool, in the log's order: a group is
        // recorded (and its deliveries start) while the reads of the groups after it go on.
        const groups: { chunk: Entry[]; planned: Promise<(Planned & { entry: string })[][]> }[] = [];
        for (let i = 0; i < fresh.length && hooks.length > 0; i += ENTRIES_PER_COMMIT) {
          const chunk = fresh.slice(i, i + ENTRIES_PER_COMMIT);
          const planned = Promise.all(
            chunk.map(({ at, change, detection }) =>
              run(async () => {
                const made = change
                  ? await eventsOfChange({ records }, change, hooks, namedBefore(change))
                  : eventsOfDetection(detection as DetectionFeedEntry, hooks);
                return made.map((item) => ({ ...item, entry: at }));
              }),
            ),
          );
          // Awaited below in turn; a failure stops the poll at its group, not as an unhandled rejection.
          planned.catch(() => undefined);
          groups.push({ chunk, planned });
        }
        for (const [index, { chunk, planned: made }] of groups.entries()) {
          if (committed === undefined) break;
          const following = fresh[(index + 1) * ENTRIES_PER_COMMIT]?.at;
          const planned = (await made)
            .flat()
            .filter((item) => !committed?.done.has(`${item.entry}>${item.hook.id}`))
            .sort((a, b) => (a.event.position < b.event.position ? -1 : a.event.position > b.event.position ? 1 : 0));
          // Everything before the next entry (or the settle window) is done once this group is recorded.
          const position = following !== undefined && following < settled ? following : settled;
          if (planned.length > 0) {
            committed = await commit(
              committed,
              chunk.map((entry) => entry.at),
              planned,
              position,
            );
            if (committed !== undefined) events += planned.length;
          }
        }
      }
      if (
        committed !== undefined &&
        committed === current &&
        timeOf(settled) - timeOf(current.position || '0') >= POSITION_EVERY_MS
      ) {
        committed = await commit(current, [], [], settled);
      }
      if (committed === undefined) {
        // Another generator recorded first: read what it recorded, and this poll's entries again next time.
        state = await deps.deliveries.generatorState();
        return { changes: 0, events };
      }
      state = committed;
      for (const entry of fresh) seen.set(entry.at, true);
      if (settled > from) readFrom = settled;
      // Saved now and then (a restart reads again from there, and records nothing twice).
      if (started - cursorSavedAt >= POSITION_EVERY_MS) {
        await deps.log.saveCursor(from);
        cursorSavedAt = started;
      }
      for (const entry of [...seen.keys()]) if (entry < settled) seen.delete(entry);
      return { changes: fresh.length, events };
    },
  };
};

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
