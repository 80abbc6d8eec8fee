import { FEED_POLLING, LOG_TIMING, PUBLISHING } from './timing.ts';
import { positionAt, type VerdictChange, type VerdictLog } from './verdicts.ts';

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
export const logSource = (
  log: Pick<VerdictLog, 'readFrom'>,
  { settleMs = LOG_TIMING.settleMs }: { settleMs?: number } = {},
): VerdictSource => ({
  async read({ position }, polledAt, signal) {
    const changes = await log.readFrom(position, signal);
    const horizon = positionAt(polledAt - settleMs);
    return { changes, position: horizon > position ? horizon : position, asOf: polledAt };
  },
});

/**
 * A poll that found the next pointer late (a slow read of the log) looks again this soon, for up
 * to a tick past its due time; a publisher later than that is polled at the reader's own interval.
 */
export const LATE_RETRY_MS = FEED_POLLING.lateRetryMs;

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
export const feedSource = (
  feed: FeedStore,
  log: Pick<VerdictLog, 'readFrom'>,
  { settleMs = LOG_TIMING.settleMs, tickMs = PUBLISHING.tickMs }: { settleMs?: number; tickMs?: number } = {},
): VerdictSource => ({
  async read({ position, cursor }, polledAt, signal) {
    const pointer = await feed.pointer();
    if (pointer === undefined) throw new Error('No verdict feed has been published yet');
    const fromLog = async (): Promise<SourceRead> => ({
      ...(await logSource(log, { settleMs }).read({ position }, polledAt, signal)),
      cursor: pointer.seq,
    });
    if (cursor === undefined || pointer.seq - cursor > MAX_DELTAS_PER_READ) return fromLog();
    const asOf = Math.min(polledAt, pointer.readAt);
    // The next pointer is due a tick after this one: a poll then finds it. One not there yet at
    // its due time is looked for again shortly, for a tick.
    const due = pointer.publishedAt + tickMs + FEED_POLLING.dueMarginMs;
    const late = pointer.seq <= cursor && polledAt < due + tickMs;
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
