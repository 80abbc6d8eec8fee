import type { Timer } from '../check/index.ts';
import { LOG_TIMING, PUBLISHER_TIMING, PUBLISHING } from './timing.ts';
import type { FeedDelta, FeedStore } from './verdict-source.ts';
import { positionAt, timeOf, type VerdictChange, type VerdictLog } from './verdicts.ts';

/** Held by one publisher at a time: `hold` takes or renews it (false: another holds it). */
export interface Lease {
  hold(now: number): Promise<boolean>;
  release(): Promise<void>;
}

type PublisherOptions = {
  log: Pick<VerdictLog, 'readFrom'>;
  /**
   * How long after a feed's chain of publishers begins the log's earlier hourly partitions may
   * still be written (by functions of the earlier version finishing their runs): read on every
   * tick until then, afterwards only at a takeover and while the last read found entries there.
   */
  legacyWritersMs?: number;
  feed: FeedStore;
  lease: Lease;
  /** How long a hold lasts; renewed when half of it is left. */
  leaseMs: number;
  now?: () => number;
  /** A publisher taking over a feed older than this starts from the present (readers catch up from the log). */
  maxLagMs?: number;
  /** The log's settle window: a commit may land this long after its stamp, so every read re-reads it. */
  settleMs?: number;
};

/** Deltas a publisher taking over reads back for the changes already published. */
const LOOKBACK = 64;

type Held = {
  until: number;
  seq: number;
  position: string;
  chainBroken: boolean;
  published: Set<string>;
  legacyUntil: number;
  /** Whether the next tick reads the earlier hourly partitions. */
  readLegacy: boolean;
};

const byVersion = (a: VerdictChange, b: VerdictChange): number =>
  a.version < b.version ? -1 : a.version > b.version ? 1 : 0;

export type PublishOutcome = { role: 'standby' } | { role: 'publisher'; published: number; seq: number };

/** What one tick read of the log, under which holding of the lease (`term`), to be published in turn. */
type LogRead =
  | { role: 'standby' }
  | {
      role: 'publisher';
      term: Set<string>;
      readAt: number;
      changes: VerdictChange[];
      /** Whether the earlier hourly partitions were read, and held entries. */
      legacy: boolean;
      found: boolean;
    };

const strip = ({ key, type, bits, seq, version, changedAt }: VerdictChange): VerdictChange => ({
  key,
  type,
  bits,
  seq,
  version,
  changedAt,
});

/**
 * The verdict publisher: while it holds the lease, each `tick` reads every shard of the log from
 * the feed's position (the settle window again, since a commit may land up to `settleMs` after its
 * stamp), writes the changes not published before as the next delta, then the pointer. A
 * publisher taking over reads back the last deltas for what is already published, so nothing is
 * published twice; a delta number is written once (`putDelta` refuses a second), so a publisher
 * that lost its lease unawares cannot write over its successor's: it steps down instead.
 */
export const verdictPublisher = ({
  log,
  feed,
  lease,
  leaseMs,
  now = Date.now,
  maxLagMs = PUBLISHER_TIMING.maxLagMs,
  legacyWritersMs = PUBLISHER_TIMING.legacyWritersMs,
  settleMs = LOG_TIMING.settleMs,
}: PublisherOptions) => {
  let held: Held | undefined;

  const takeOver = async (at: number, until: number): Promise<Held> => {
    const pointer = await feed.pointer();
    const present = positionAt(at - settleMs);
    // A takeover reads the earlier partitions once whatever the chain's age: its predecessor's last read is not known.
    const legacy = { legacyUntil: pointer?.legacyUntil ?? at + legacyWritersMs, readLegacy: true };
    if (pointer === undefined) {
      return { until, seq: 0, position: present, chainBroken: true, published: new Set(), ...legacy };
    }
    if (at - timeOf(pointer.position) > maxLagMs) {
      return { until, seq: pointer.seq, position: present, chainBroken: true, published: new Set(), ...legacy };
    }
    // A predecessor may have stopped between writing a delta and its pointer.
    let top = pointer.seq;
    let position = pointer.position;
    for (let next = await feed.delta(top + 1); next !== undefined; next = await feed.delta(top + 1)) {
      top = next.seq;
      if (next.position > position) position = next.position;
    }
    const published = new Set<string>();
    for (let seq = top; seq > 0 && seq > top - LOOKBACK; seq--) {
      const delta = await feed.delta(seq);
      if (delta === undefined) break;
      for (const change of delta.changes) if (change.version >= position) published.add(change.version);
      // Older deltas were read before anything stamped at the position could be seen.
      if (delta.readAt + PUBLISHER_TIMING.clockSkewMs < timeOf(position)) break;
    }
    return { until, seq: top, position, chainBroken: false, published, ...legacy };
  };

  /**
   * The log from `from`: every shard, and the earlier hourly partitions when `legacy`, read at
   * once. `found` tells whether the hourly partitions held any entry from `from` on.
   */
  const readLog = async (from: string, legacy: boolean) => {
    const [sharded, earlier] = await Promise.all([
      log.readFrom(from, undefined, { legacy: false }),
      legacy ? log.readFrom(from, undefined, { shards: false }) : [],
    ]);
    if (earlier.length === 0) return { changes: sharded, found: false };
    const seen = new Set(sharded.map((change) => change.version));
    const changes = [...sharded, ...earlier.filter((change) => !seen.has(change.version))].sort(byVersion);
    return { changes, found: true };
  };

  /**
   * Starts a tick: takes or renews the lease, then reads the log from the feed's position. Reads
   * of consecutive ticks may overlap (`runPublisher` starts one every tick while the previous is
   * still reading); their outcomes are published in the order they began.
   */
  const read = async (): Promise<LogRead> => {
    const at = now();
    if (held === undefined || held.until - at < leaseMs / 2) {
      if (!(await lease.hold(at))) {
        held = undefined;
        return { role: 'standby' };
      }
      held = held === undefined ? await takeOver(at, at + leaseMs) : { ...held, until: at + leaseMs };
    }
    const state = held;
    const readAt = now();
    const { changes, found } = await readLog(state.position, state.readLegacy);
    return { role: 'publisher', term: state.published, readAt, changes, found, legacy: state.readLegacy };
  };

  /**
   * Publishes what `read` found: the changes not published before as the next delta (it goes on
   * from the previous delta's position: the read began there or earlier), then the pointer.
   */
  const publish = async (found: LogRead): Promise<PublishOutcome> => {
    const state = held;
    // A read of an earlier holding of the lease (lost and taken again meanwhile) is not published.
    if (found.role === 'standby' || state === undefined || state.published !== found.term) return { role: 'standby' };
    const { readAt, changes } = found;
    const fresh = changes
      .filter((change) => change.version >= state.position && !state.published.has(change.version))
      .map(strip);
    const horizon = positionAt(readAt - settleMs);
    const position = horizon > state.position ? horizon : state.position;
    // The lease may have run out while the log was read: then a successor may be publishing.
    if (now() >= state.until) {
      held = undefined;
      return { role: 'standby' };
    }
    let seq = state.seq;
    if (fresh.length > 0 || state.chainBroken) {
      seq++;
      const delta: FeedDelta = {
        format: 1,
        seq,
        from: state.position,
        position,
        readAt,
        changes: fresh,
        ...(state.chainBroken ? {} : { continues: true }),
      };
      if (!(await feed.putDelta(delta))) {
        held = undefined;
        return { role: 'standby' };
      }
    }
    await feed.putPointer({ format: 1, seq, position, readAt, publishedAt: now(), legacyUntil: state.legacyUntil });
    for (const change of fresh) state.published.add(change.version);
    for (const version of state.published) if (version < position) state.published.delete(version);
    // A read begun before the previous one found entries there did not look: the next one does.
    const readLegacy = found.found || readAt < state.legacyUntil || (!found.legacy && state.readLegacy);
    // The lease may have been renewed by a read begun meanwhile: its term is kept.
    const current = held ?? state;
    held = { ...current, seq, position, chainBroken: false, readLegacy };
    return { role: 'publisher', published: fresh.length, seq };
  };

  return {
    /** One tick: a read of the log, then its publication. */
    tick: async (): Promise<PublishOutcome> => publish(await read()),
    read,
    publish,
    /** Whether this publisher holds the lease (its next reads may overlap). */
    holding: () => held !== undefined,
    /** Lets the lease go (at shutdown), so a successor need not wait for it to run out. */
    async stop() {
      if (held !== undefined) await lease.release();
      held = undefined;
    },
  };
};

export type VerdictPublisher = ReturnType<typeof verdictPublisher>;

/** The platform's timers, not keeping the process alive for a tick. */
const unrefTimer: Timer = (ms, fire) => {
  const handle = setTimeout(fire, ms);
  handle.unref?.();
  return () => clearTimeout(handle);
};

/** Reads of the log a publisher has under way at once, at most. */
const MAX_READS_IN_FLIGHT = 2;

/**
 * Runs `publisher` every `tickMs` until `until` (epoch ms) or `stop` is called; a failed tick is
 * reported and the next one tries again. Ticks begin at a fixed cadence: while the publisher holds
 * the lease, a tick's read of the log begins on time even when the previous one is still reading
 * (up to `MAX_READS_IN_FLIGHT` at once), so a slow read delays the changes it missed by a tick,
 * not by another read; what the reads find is published in the order they began.
 */
export const runPublisher = (
  publisher: VerdictPublisher,
  {
    tickMs = PUBLISHING.tickMs,
    until = Number.POSITIVE_INFINITY,
    onError = () => {},
    now = Date.now,
    timer = unrefTimer,
  }: {
    tickMs?: number;
    until?: number;
    onError?: (error: unknown) => void;
    now?: () => number;
    /** The waits between ticks. */
    timer?: Timer;
  } = {},
) => {
  let stopped = false;
  let wake: (() => void) | undefined;
  const done = (async () => {
    let published: Promise<unknown> = Promise.resolve();
    let inFlight = 0;
    while (!stopped && now() < until) {
      const started = now();
      // Until it holds the lease (a takeover reads the feed), a publisher runs one tick at a time.
      if (inFlight === 0 || (inFlight < MAX_READS_IN_FLIGHT && publisher.holding())) {
        inFlight++;
        const reading = publisher.read();
        // Its failure is reported in turn, below.
        reading.catch(() => {});
        published = published
          .then(() => reading)
          .then((found) => publisher.publish(found))
          .catch(onError)
          .finally(() => {
            inFlight--;
          });
        if (!publisher.holding()) await published;
      }
      const wait = Math.max(0, tickMs - (now() - started));
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer(wait, resolve);
      });
    }
    await published;
    await publisher.stop().catch(onError);
  })();
  return {
    done,
    stop: async () => {
      stopped = true;
      wake?.();
      await done;
    },
  };
};
