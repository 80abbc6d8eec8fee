import { DELIVERY_CAPACITY } from '../db/delivery-repository.ts';
import type { VerdictOrigin } from '../db/verdict-change.ts';
import type {
  ChangeLogReader,
  DeliveryStore,
  DetectionFeedEntry,
  GeneratorState,
  LoggedChange,
  NewBatch,
  WebhookStore,
} from '../db/webhook-repository.ts';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import { BIT, LOG_TIMING, positionAt, timeOf } from '../domain/verdict-feed/index.ts';
import type { Enqueue } from './dispatch.ts';
import { type AssetRecords, eventsOfChange, eventsOfDetection, type Planned } from './events.ts';

export type GeneratorDeps = {
  hooks: Pick<WebhookStore, 'listAll'>;
  deliveries: Pick<DeliveryStore, 'generatorState' | 'commitEvents' | 'detectionFeed'>;
  log: ChangeLogReader;
  records: AssetRecords;
  now: () => number;
  /** Delivery records one commit holds: at most, and by default, `DELIVERY_CAPACITY.recordsPerCommit`. */
  batchesPerCommit?: number;
};

/** How much one delivery record and one commit of records hold: the store's figures. */
const { eventsPerRecord, bodyBytesPerRecord, recordsPerCommit, bytesPerCommit, eventOverheadBytes } = DELIVERY_CAPACITY;
/** Changes whose records are read at once by one poll. */
const CONCURRENCY = 32;
/** Log entries turned into events and recorded together: deliveries of a long backlog start after the first. */
const ENTRIES_PER_COMMIT = 400;
/** With no events to record, the generator's position is still saved this often (so a restart reads little again). */
const POSITION_EVERY_MS = 10_000;
/**
 * How long the organizations named by a change of a content count as having records of it: the
 * index of records by content is eventually consistent, so a threat approved just before another
 * organization's change may not be found there yet; its own change named its organization.
 */
const ORIGIN_MEMORY_MS = 60_000;

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
      const full = current.length >= eventsPerRecord || bytes + item.event.body.length > bodyBytesPerRecord;
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
  const perCommit = Math.min(recordsPerCommit, deps.batchesPerCommit ?? recordsPerCommit);
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
      const size = batch.events.reduce((sum, event) => sum + event.body.length + eventOverheadBytes, 0);
      const group = groups.at(-1) as typeof batches;
      if (group.length > 0 && (group.length >= perCommit || bytes + size > bytesPerCommit)) {
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
