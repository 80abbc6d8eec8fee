import { LOG_TIMING, positionAt, timeOf, type VerdictChange, type VerdictLog } from './verdicts.ts';

/**
 * Where a check container's replica gets the verdict changes after its snapshot: the check's
 * verdict source. In AWS and under `npm start` it is the published feed (`feedSource`): one
 * publisher reads every shard of the log each quarter second and writes what it found as a delta
 * object, so containers poll the object store and put no read on any table partition. Tests and
 * tools without a publisher read the log itself (`logSource`).
 */
export type SourceRead = {
  changes: VerdictChange[];
  /** Every change stamped before this position is in `changes` or was read before. */
  position: string;
  /** The last delta read (feed sources), to go on from at the next read. */
  cursor?: number;
  /** When the changes were current (epoch ms): the log read behind them began then. */
  asOf: number;
  /** When the next changes are due (epoch ms), where the source publishes on a rhythm. */
  nextAt?: number;
};

export interface VerdictSource {
  /** The changes after a reader's place: its position and, from a previous read, its cursor. */
  /** `signal` abandons the read (its requests are cancelled, so a stalled store does not keep them). */
  read(from: { position: string; cursor?: number }, polledAt: number, signal?: AbortSignal): Promise<SourceRead>;
}

/**
 * What the publisher found new in one read of the log. `from` is where that read began (the
 * previous delta's `position`, unless the publisher skipped ahead after a long stop), `position`
 * where every change stamped before it has been published.
 */
export type FeedDelta = {
  format: 1;
  seq: number;
  from: string;
  position: string;
  readAt: number;
  changes: VerdictChange[];
  /**
   * The delta goes on from the pointer before it (`from` is that pointer's position): pointers in
   * between moved the position without a delta because their reads found nothing new, so a reader
   * holding the previous delta misses nothing though its own position is behind `from`. Unset after
   * a skip ahead (and in deltas of earlier versions).
   */
  continues?: true;
};

/**
 * The newest delta and position, written after the delta: a reader never sees a pointer without its
 * delta. `legacyUntil` (epoch ms) is how long the chain of publishers reads the earlier hourly
 * partitions of the log on every tick (absent in pointers of earlier versions).
 */
export type FeedPointer = {
  format: 1;
  seq: number;
  position: string;
  readAt: number;
  publishedAt: number;
  legacyUntil?: number;
};

export interface FeedStore {
  pointer(): Promise<FeedPointer | undefined>;
  delta(seq: number): Promise<FeedDelta | undefined>;
  /** Writes delta `seq` unless one of that number exists (then false: another publisher wrote it). */
  putDelta(delta: FeedDelta): Promise<boolean>;
  putPointer(pointer: FeedPointer): Promise<void>;
}

/** The log read directly, for readers without a publisher: every change from the position on, re-reading the settle window. */
export const logSource = (log: Pick<VerdictLog, 'readFrom'>): VerdictSource => ({
  async read({ position }, polledAt, signal) {
    const changes = await log.readFrom(position, signal);
    const horizon = positionAt(polledAt - LOG_TIMING.settleMs);
    return { changes, position: horizon > position ? horizon : position, asOf: polledAt };
  },
});

/** A poll aimed at the next pointer comes this long after it is due (its write takes a moment). */
const DUE_MARGIN_MS = 50;
/**
 * A poll that found the next pointer late (a slow read of the log) looks again this soon, for up
 * to a tick past its due time; a publisher later than that is polled at the reader's own interval.
 */
export const LATE_RETRY_MS = 50;

/** A reader further behind than this many deltas (a container frozen for a while) reads the log once instead. */
const MAX_DELTAS_PER_READ = 40;

/**
 * The published feed. A reader's first read (from a snapshot) takes the pointer, then reads the
 * log from its position once: every delta up to the pointer's was written before that read began,
 * so what they hold is in it, and the deltas after the pointer hold the rest. After that each read
 * is one GET of the pointer, and one per new delta. A delta that does not go on from where the
 * reader is (the publisher skipped ahead), or too many of them, send the reader to the log once;
 * one that goes on from the pointer before it (`continues`) does not, though the reader missed
 * the pointers that moved its position meanwhile.
 */
export const feedSource = (feed: FeedStore, log: Pick<VerdictLog, 'readFrom'>): VerdictSource => ({
  async read({ position, cursor }, polledAt, signal) {
    const pointer = await feed.pointer();
    if (pointer === undefined) throw new Error('No verdict feed has been published yet');
    const fromLog = async (): Promise<SourceRead> => ({
      ...(await logSource(log).read({ position }, polledAt, signal)),
      cursor: pointer.seq,
    });
    if (cursor === undefined || pointer.seq - cursor > MAX_DELTAS_PER_READ) return fromLog();
    const asOf = Math.min(polledAt, pointer.readAt);
    // The next pointer is due a tick after this one: a poll then finds it. One not there yet at
    // its due time is looked for again shortly, for a tick.
    const due = pointer.publishedAt + PUBLISHING.tickMs + DUE_MARGIN_MS;
    const late = pointer.seq <= cursor && polledAt < due + PUBLISHING.tickMs;
    const nextAt = due > polledAt ? due : late ? polledAt + LATE_RETRY_MS : undefined;
    // A pointer copy behind the one read last time: nothing new yet.
    if (pointer.seq <= cursor) {
      const at = pointer.seq === cursor && pointer.position > position ? pointer.position : position;
      return { changes: [], position: at, cursor, asOf, ...(nextAt === undefined ? {} : { nextAt }) };
    }
    const seqs = Array.from({ length: pointer.seq - cursor }, (_, i) => cursor + 1 + i);
    const deltas = await Promise.all(seqs.map((seq) => feed.delta(seq)));
    const changes: VerdictChange[] = [];
    let at = position;
    for (const delta of deltas) {
      if (delta === undefined || (delta.from > at && delta.continues !== true)) return fromLog();
      changes.push(...delta.changes);
      if (delta.position > at) at = delta.position;
    }
    if (pointer.position > at) at = pointer.position;
    return { changes, position: at, cursor: pointer.seq, asOf, ...(nextAt === undefined ? {} : { nextAt }) };
  },
});

/**
 * The publisher's timing: a read of the log every quarter second, its delta written when it found
 * changes and the pointer at every tick (replicas poll the pointer just after it is due, so a
 * change reaches a check within a tick, a read of the log and a poll: under a second), and a lease
 * renewed at half its 10 s, so a stopped publisher's successor starts within 10 s (replicas keep
 * their verdicts meanwhile).
 */
export const PUBLISHING = { tickMs: 250, leaseMs: 10_000, leaseName: 'verdict-publisher' } as const;

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
};

/** Entries may be stamped this far ahead of the publisher's clock; a delta may hold changes stamped up to then. */
const CLOCK_SKEW_MS = 1_000;
/** Deltas a publisher taking over reads back for the changes already published. */
const LOOKBACK = 64;

/** A function of the earlier version runs at most 15 minutes (Lambda's longest timeout) after it was replaced. */
const LEGACY_WRITERS_MS = 15 * 60_000;

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
  maxLagMs = 60_000,
  legacyWritersMs = LEGACY_WRITERS_MS,
}: PublisherOptions) => {
  let held: Held | undefined;

  const takeOver = async (at: number, until: number): Promise<Held> => {
    const pointer = await feed.pointer();
    const present = positionAt(at - LOG_TIMING.settleMs);
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
      if (delta.readAt + CLOCK_SKEW_MS < timeOf(position)) break;
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
    const horizon = positionAt(readAt - LOG_TIMING.settleMs);
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
    tickMs,
    until = Number.POSITIVE_INFINITY,
    onError = () => {},
  }: { tickMs: number; until?: number; onError?: (error: unknown) => void },
) => {
  let stopped = false;
  let wake: (() => void) | undefined;
  const done = (async () => {
    let published: Promise<unknown> = Promise.resolve();
    let inFlight = 0;
    while (!stopped && Date.now() < until) {
      const started = Date.now();
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
      const wait = Math.max(0, tickMs - (Date.now() - started));
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, wait).unref?.();
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
