import type { CheckIndexStore, Timer } from '../check/index.ts';
import { expired, scanned } from './snapshots.ts';
import { applyChanges, VerdictState } from './state.ts';
import { LOG_TIMING, REPLICA_TIMING } from './timing.ts';
import { logSource, type VerdictSource } from './verdict-source.ts';
import { timeOf, type VerdictLog, type VerdictSnapshotStore } from './verdicts.ts';

type ReplicaOptions = {
  log: VerdictLog;
  /** Where the changes after the snapshot come from: the log itself unless given (the published feed in AWS). */
  source?: VerdictSource;
  /** The log's settle window, for the log read directly and a read of the whole index. */
  settleMs?: number;
  /** Where snapshots are read from; without a store (locally, in tests) the index itself is read. */
  snapshots?: VerdictSnapshotStore;
  /** At most one poll per this interval. */
  pollMs?: number;
  /** A poll that takes longer than this has failed (a stalled table must not stop later polls). */
  pollTimeoutMs?: number;
  /** A replica not synced for this long flags its answers (they still stand). */
  staleAfterMs?: number;
  /** After an idle spell (a frozen container), the lookup that starts a poll waits this long for it. */
  waitMs?: number;
  now?: () => number;
  /** The waits of a poll: its timeout and a lookup's wait for it. */
  timer?: Timer;
  onError?: (error: unknown) => void;
  onGap?: (gaps: number) => void;
  /** Told, at every answer, how old the verdicts it came from are: the ms since the replica last caught up with the log. */
  onAnswer?: (ageMs: number) => void;
};

export type ReplicaStatus = { version: string; updatedAt: string; entries: number };

export type ReplicatedIndex = CheckIndexStore & {
  /** Starts loading now, before any request waits for it (at init, when Lambda initializes ahead of requests). */
  warm(): void;
  /** Loads if needed and polls now, after any poll under way; resolves when done (failures are reported, not thrown). */
  sync(): Promise<void>;
  status(): ReplicaStatus | Promise<ReplicaStatus>;
  stale(): boolean;
};

const settleWithin = (timer: Timer, promise: Promise<void>, ms: number): Promise<void> =>
  new Promise((resolve) => {
    const cancel = timer(ms, resolve);
    void promise.finally(() => {
      cancel();
      resolve();
    });
  });

/** `read`, abandoned (its signal aborted) and failed when it takes longer than `ms`. */
const failAfter = <T>(timer: Timer, read: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> =>
  new Promise((resolve, reject) => {
    const controller = new AbortController();
    const promise = read(controller.signal);
    const cancel = timer(ms, () => {
      controller.abort();
      reject(new Error(`Verdict log read took longer than ${ms} ms`));
    });
    promise.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (error: unknown) => {
        cancel();
        reject(error);
      },
    );
  });

/** The platform's timers. */
const systemTimer: Timer = (ms, fire) => {
  const handle = setTimeout(fire, ms);
  return () => clearTimeout(handle);
};

/**
 * The check index as an in-memory replica: the newest snapshot at cold start, then the log from
 * the snapshot's position, polled when a lookup finds the last poll older than `pollMs` (so an
 * idle container reads nothing). A lookup answers from memory; only after an idle spell does the
 * lookup that starts a poll wait for it (up to `waitMs`). A failing or stalled log keeps the last
 * known verdicts, flagged stale after `staleAfterMs`. A gap in the log, or a position older than
 * its retention, reloads the newest snapshot when it is newer than the one held.
 */
export const replicatedIndex = ({
  log,
  settleMs = LOG_TIMING.settleMs,
  source = logSource(log, { settleMs }),
  snapshots,
  pollMs = REPLICA_TIMING.pollMs,
  pollTimeoutMs = REPLICA_TIMING.pollTimeoutMs,
  staleAfterMs = REPLICA_TIMING.staleAfterMs,
  waitMs = REPLICA_TIMING.waitMs,
  now = Date.now,
  timer = systemTimer,
  onError = () => {},
  onGap = () => {},
  onAnswer = () => {},
}: ReplicaOptions): ReplicatedIndex => {
  let state: VerdictState | undefined;
  let loading: Promise<VerdictState> | undefined;
  let polling: Promise<void> | undefined;
  let syncedAt = Number.NEGATIVE_INFINITY;
  /** When the verdicts held were current: the source's own lag (the publisher's) on top of the last poll. */
  let currentAt = Number.NEGATIVE_INFINITY;
  let pollStartedAt = Number.NEGATIVE_INFINITY;
  /** When the next poll is due: a poll interval after the last, or when the source said its next changes are due. */
  let nextPollAt = Number.NEGATIVE_INFINITY;
  /** Where in the source `state` has read to (the last delta), reset with the state. */
  let cursor: number | undefined;

  const newestSnapshot = async (): Promise<VerdictState | undefined> => {
    const snapshot = await snapshots?.latest();
    return snapshot && !expired(snapshot.position, now()) ? VerdictState.of(snapshot) : undefined;
  };

  const fromSnapshot = (): Promise<VerdictState | undefined> =>
    newestSnapshot().catch((error: unknown) => {
      onError(error);
      return undefined;
    });

  /**
   * Where a replica starts: the newest snapshot. A replica with a snapshot store never reads the
   * whole index (in AWS it may not Scan): without a usable snapshot it has no verdicts to answer
   * with, fails, and tries again at the next lookup a poll interval later.
   */
  const start = async (): Promise<VerdictState> => {
    if (snapshots === undefined) return scanned(log, now, settleMs);
    const state = await newestSnapshot();
    if (state === undefined) throw new Error('No verdict snapshot within the log retention to start from');
    return state;
  };

  /** Applies the log to `current`; on a gap, moves to a newer snapshot if there is one. */
  const catchUp = async (current: VerdictState): Promise<void> => {
    const polledAt = now();
    const read = await failAfter(
      timer,
      (signal) => source.read({ position: current.position, cursor }, polledAt, signal),
      pollTimeoutMs,
    );
    const gaps = applyChanges(current, read.changes, read.position);
    cursor = read.cursor;
    if (gaps > 0) {
      onGap(gaps);
      const candidate = await fromSnapshot();
      if (candidate && candidate.base > current.base) {
        const again = await failAfter(
          timer,
          (signal) => source.read({ position: candidate.position }, now(), signal),
          pollTimeoutMs,
        );
        applyChanges(candidate, again.changes, again.position);
        state = candidate;
        cursor = again.cursor;
      }
    }
    syncedAt = polledAt;
    currentAt = read.asOf;
    if (read.nextAt !== undefined) nextPollAt = Math.max(read.nextAt, polledAt + pollMs / 5);
  };

  let loadFailed: { at: number; error: unknown } | undefined;
  const load = (): Promise<VerdictState> => {
    // A failed load is not retried by every lookup: at most once per poll interval.
    if (loadFailed && now() - loadFailed.at < pollMs) return Promise.reject(loadFailed.error);
    loading ??= (async () => {
      pollStartedAt = now();
      nextPollAt = pollStartedAt + pollMs;
      const loaded = await start();
      state = loaded;
      cursor = undefined;
      await catchUp(loaded).catch(onError);
      return state;
    })()
      .catch((error: unknown) => {
        loadFailed = { at: now(), error };
        throw error;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };

  const poll = (current: VerdictState): Promise<void> => {
    pollStartedAt = now();
    nextPollAt = pollStartedAt + pollMs;
    polling = (async () => {
      if (expired(current.position, now())) {
        const fresh = await start();
        state = fresh;
        cursor = undefined;
        await catchUp(fresh);
      } else {
        await catchUp(current);
      }
    })()
      .catch(onError)
      .finally(() => {
        polling = undefined;
      });
    return polling;
  };

  /** Answers from the state held, starting a poll when one is due. */
  const read = <T>(answer: (current: VerdictState) => T): T | Promise<T> => {
    const reply = (answering: VerdictState): T => {
      // Until its first poll succeeds, a replica is as current as the position it was loaded at.
      onAnswer(now() - (Number.isFinite(currentAt) ? currentAt : timeOf(answering.position)));
      return answer(answering);
    };
    const current = state;
    if (current === undefined) return load().then(reply);
    const time = now();
    if (polling === undefined && loading === undefined && time >= nextPollAt) {
      const started = poll(current);
      const idle = time - syncedAt >= 2 * pollMs && time - syncedAt < staleAfterMs;
      if (idle) return settleWithin(timer, started, waitMs).then(() => reply(state ?? current));
    }
    return reply(current);
  };

  const statusOf = (current: VerdictState): ReplicaStatus => ({
    version: current.version,
    updatedAt: new Date(timeOf(current.version)).toISOString(),
    entries: current.live,
  });

  return {
    lookup: (keys) => read((current) => current.lookup(keys)),
    warm: () => {
      void load().catch(onError);
    },
    sync: async () => {
      // A poll already under way may have read the log before the caller's last write.
      if (polling) await polling;
      await poll(state ?? (await load()));
    },
    status: () => read(statusOf),
    stale: () => state !== undefined && now() - currentAt > staleAfterMs,
  };
};
