import { type CheckIndexStore, hashesOf, type IndexEntry, KeyTable, type Timer } from '../check/index.ts';
import { LOG_TIMING, REPLICA_TIMING, SNAPSHOT_TIMING } from './timing.ts';
import { logSource, type VerdictSource } from './verdict-source.ts';
import {
  bitsOfPacked,
  entryOfBits,
  type IndexRebuild,
  isLive,
  pack,
  positionAt,
  seqOf,
  timeOf,
  type VerdictChange,
  type VerdictLog,
  type VerdictSnapshot,
  type VerdictSnapshotStore,
} from './verdicts.ts';

export type ApplyOutcome = 'applied' | 'duplicate' | 'gap';

/**
 * The verdicts in memory: one table entry per key, its value `seq * 8 + bits`, so a million keys
 * cost their characters and the table's slots, and nothing per entry besides.
 */
export class VerdictState {
  readonly #states: KeyTable;
  #live = 0;
  /** Every change stamped before this position has been applied. */
  position: string;
  /** The newest change applied among those stamped before `position`. */
  version: string;
  scannedAt: string;
  /** The position this state was loaded at (its snapshot's, or its read of the index's). */
  readonly base: string;

  constructor(base: {
    keys: readonly string[];
    states: readonly number[];
    position: string;
    version: string;
    scannedAt: string;
  }) {
    let chars = 0;
    for (const key of base.keys) chars += key.length;
    this.#states = new KeyTable(base.keys.length, chars);
    for (let i = 0; i < base.keys.length; i++) {
      const packed = base.states[i] as number;
      this.#states.set(base.keys[i] as string, packed);
      if (isLive(bitsOfPacked(packed))) this.#live++;
    }
    this.position = base.position;
    this.base = base.position;
    this.version = base.version;
    this.scannedAt = base.scannedAt;
  }

  static of(snapshot: VerdictSnapshot): VerdictState {
    return new VerdictState(snapshot);
  }

  get size(): number {
    return this.#states.size;
  }

  /** Keys with an ALLOWED or BLOCKED verdict. */
  get live(): number {
    return this.#live;
  }

  /**
   * A change older than what is held is a duplicate (the trailing window is read again on every
   * poll); the next one is applied; a later one means changes of this key were missed. It is
   * applied too, since it carries the key's whole state, but the caller learns of the gap.
   */
  apply(change: VerdictChange): ApplyOutcome {
    const held = this.#states.get(change.key);
    const heldSeq = held === undefined ? 0 : seqOf(held);
    if (change.seq <= heldSeq) return 'duplicate';
    const wasLive = held !== undefined && isLive(bitsOfPacked(held));
    const nowLive = isLive(change.bits);
    if (wasLive !== nowLive) this.#live += nowLive ? 1 : -1;
    this.#states.set(change.key, pack(change.seq, change.bits));
    return change.seq === heldSeq + 1 ? 'applied' : 'gap';
  }

  lookup(keys: readonly string[]): (IndexEntry | undefined)[] {
    const answers: (IndexEntry | undefined)[] = new Array(keys.length);
    const hashes = hashesOf(keys);
    for (let i = 0; i < keys.length; i++) {
      const packed = this.#states.get(keys[i] as string, hashes[i]);
      answers[i] = packed === undefined ? undefined : entryOfBits(bitsOfPacked(packed));
    }
    return answers;
  }

  toSnapshot(createdAt: string): VerdictSnapshot {
    const keys: string[] = [];
    const states: number[] = [];
    for (const [key, packed] of this.#states.entries()) {
      keys.push(key);
      states.push(packed);
    }
    return {
      format: 1,
      position: this.position,
      version: this.version,
      createdAt,
      scannedAt: this.scannedAt,
      keys,
      states,
    };
  }
}

/**
 * Applies the log read from `state.position` on. `polledAt` is when the read started: changes
 * stamped more than `settleMs` before it can no longer be joined by late commits, so the
 * position moves there. Returns the number of gaps seen.
 */
export const applyLog = (
  state: VerdictState,
  changes: readonly VerdictChange[],
  polledAt: number,
  settleMs: number = LOG_TIMING.settleMs,
): number => applyChanges(state, changes, positionAt(polledAt - settleMs));

/** Applies changes read up to `position` (every change stamped before it is among them or was applied before). */
export const applyChanges = (state: VerdictState, changes: readonly VerdictChange[], position: string): number => {
  let gaps = 0;
  for (const change of changes) {
    if (state.apply(change) === 'gap') gaps++;
    if (change.version < position && change.version > state.version) state.version = change.version;
  }
  if (position > state.position) state.position = position;
  return gaps;
};

/**
 * How far before a rebuild began the log is replayed: the index it reads is a secondary index,
 * which DynamoDB updates shortly after each commit (typically well within a second); the log
 * holds 7 days, so a generous margin costs little.
 */
const INDEX_LAG_MS = SNAPSHOT_TIMING.indexLagMs;
/** Shards of the index read at once by a rebuild. */
const REBUILD_READERS = 4;

/**
 * Reads the index on from where `rebuild` stopped (a new read when there is none) until every
 * shard is read or `deadline` (epoch ms) passes; the result says which shards are left.
 */
const continueRebuild = async (
  log: VerdictLog,
  rebuild: IndexRebuild | undefined,
  { now = Date.now, deadline = Number.POSITIVE_INFINITY }: { now?: () => number; deadline?: number } = {},
): Promise<IndexRebuild> => {
  const progress: IndexRebuild = rebuild ?? {
    format: 1,
    startedAt: now(),
    shards: Array.from({ length: log.indexShards }, () => null),
    keys: [],
    states: [],
  };
  const pending = progress.shards.flatMap((cursor, shard) => (cursor === true ? [] : [shard]));
  const reader = async () => {
    for (let shard = pending.shift(); shard !== undefined; shard = pending.shift()) {
      let cursor = progress.shards[shard];
      while (cursor !== true && now() < deadline) {
        const page = await log.readIndexPage(shard, cursor ?? undefined);
        for (let i = 0; i < page.keys.length; i++) {
          progress.keys.push(page.keys[i] as string);
          progress.states.push(page.states[i] as number);
        }
        if (page.newest !== undefined && (progress.newest === undefined || page.newest > progress.newest)) {
          progress.newest = page.newest;
        }
        cursor = page.next ?? true;
        progress.shards[shard] = cursor;
      }
    }
  };
  await Promise.all(Array.from({ length: REBUILD_READERS }, reader));
  return progress;
};

const rebuildDone = (rebuild: IndexRebuild): boolean => rebuild.shards.every((cursor) => cursor === true);

/**
 * The snapshot a finished rebuild gives before its log replay: one entry per key (an entry
 * changed while its shard was read can come twice; its higher sequence wins), positioned before
 * the read began by the index's lag.
 */
const rebuiltBase = (rebuild: IndexRebuild, settleMs: number): VerdictSnapshot => {
  let chars = 0;
  for (const key of rebuild.keys) chars += key.length;
  const at = new KeyTable(rebuild.keys.length, chars);
  const keys: string[] = [];
  const states: number[] = [];
  for (let i = 0; i < rebuild.keys.length; i++) {
    const key = rebuild.keys[i] as string;
    const packed = rebuild.states[i] as number;
    const held = at.get(key);
    if (held === undefined) {
      at.set(key, keys.length);
      keys.push(key);
      states.push(packed);
    } else if (seqOf(packed) > seqOf(states[held] as number)) states[held] = packed;
  }
  const position = positionAt(rebuild.startedAt - settleMs - INDEX_LAG_MS);
  // A change newer than the position is not settled yet; the log replay takes it up when it is.
  const version = rebuild.newest !== undefined && rebuild.newest < position ? rebuild.newest : position;
  const scannedAt = new Date(rebuild.startedAt).toISOString();
  return { format: 1, position, version, createdAt: scannedAt, scannedAt, keys, states };
};

/**
 * The next snapshot from `previous` and the log since its position, without a table of every key:
 * the changes are grouped by key (a few per second's worth), then the previous snapshot is walked
 * once, each held key taking its changes, and the keys it did not hold are appended. The same
 * outcome as `applyLog` on a `VerdictState` of `previous` (gaps counted the same way), at the cost
 * of the two arrays. `polledAt` is when the log read started.
 */
export const compactSnapshot = (
  previous: VerdictSnapshot,
  changes: readonly VerdictChange[],
  polledAt: number,
  createdAt: string,
  settleMs: number = LOG_TIMING.settleMs,
): { snapshot: VerdictSnapshot; gaps: number } => {
  const byKey = new Map<string, VerdictChange[]>();
  for (const change of changes) {
    const held = byKey.get(change.key);
    if (held === undefined) byKey.set(change.key, [change]);
    else held.push(change);
  }
  let gaps = 0;
  const advance = (packed: number | undefined, keyChanges: readonly VerdictChange[]): number | undefined => {
    let state = packed;
    for (const change of keyChanges) {
      const heldSeq = state === undefined ? 0 : seqOf(state);
      if (change.seq <= heldSeq) continue;
      if (change.seq !== heldSeq + 1) gaps++;
      state = pack(change.seq, change.bits);
    }
    return state;
  };
  const keys = previous.keys.slice();
  const states = previous.states.slice();
  for (let i = 0; i < keys.length && byKey.size > 0; i++) {
    const key = keys[i] as string;
    const keyChanges = byKey.get(key);
    if (keyChanges === undefined) continue;
    byKey.delete(key);
    states[i] = advance(states[i], keyChanges) as number;
  }
  for (const [key, keyChanges] of byKey) {
    keys.push(key);
    states.push(advance(undefined, keyChanges) as number);
  }
  const horizon = positionAt(polledAt - settleMs);
  let version = previous.version;
  for (const change of changes) if (change.version < horizon && change.version > version) version = change.version;
  const position = horizon > previous.position ? horizon : previous.position;
  return {
    snapshot: { format: 1, position, version, createdAt, scannedAt: previous.scannedAt, keys, states },
    gaps,
  };
};

/** The whole index read in one go, one entry per key, positioned to replay the log from. */
export const readWholeIndex = async (
  log: VerdictLog,
  now: () => number = Date.now,
  settleMs: number = LOG_TIMING.settleMs,
): Promise<VerdictSnapshot> => rebuiltBase(await continueRebuild(log, undefined, { now }), settleMs);

/** A state read straight from the whole index (a replica without a snapshot store, locally and in tests). */
const scanned = async (log: VerdictLog, now: () => number, settleMs: number): Promise<VerdictState> =>
  VerdictState.of(await readWholeIndex(log, now, settleMs));

const expired = (position: string, now: number) =>
  now - timeOf(position) > LOG_TIMING.retentionMs - LOG_TIMING.bucketMs;

type SnapshotOptions = { now?: () => number; deadline?: number; settleMs?: number };

export type SnapshotStep = {
  /** The snapshot to store, if there is one to store. */
  snapshot?: VerdictSnapshot;
  /** A rebuild left to go on with at the next run (absent: none, or it finished now). */
  rebuild?: IndexRebuild;
  rebuilt: boolean;
};

/**
 * The next snapshot: the previous one compacted with the log since its position (the only path
 * while the log has no gap; the table is never read whole). With no previous snapshot within the
 * log's retention, or a gap in the log, the index is read again shard by shard (`continueRebuild`)
 * until `deadline`, and the read carries over to the next run; meanwhile the compacted snapshot
 * (if any) is still stored. A finished rebuild replays the log from before it began and replaces it.
 */
export const nextSnapshot = async (
  log: VerdictLog,
  previous: VerdictSnapshot | undefined,
  rebuild: IndexRebuild | undefined,
  { now = Date.now, deadline = Number.POSITIVE_INFINITY, settleMs = LOG_TIMING.settleMs }: SnapshotOptions = {},
): Promise<SnapshotStep> => {
  let compacted: VerdictSnapshot | undefined;
  let gaps = 0;
  if (previous !== undefined && !expired(previous.position, now())) {
    const polledAt = now();
    const changes = await log.readFrom(previous.position);
    ({ snapshot: compacted, gaps } = compactSnapshot(
      previous,
      changes,
      polledAt,
      new Date(now()).toISOString(),
      settleMs,
    ));
  }
  if (compacted !== undefined && gaps === 0 && rebuild === undefined) return { snapshot: compacted, rebuilt: false };
  const progress = await continueRebuild(log, rebuild, { now, deadline });
  if (!rebuildDone(progress)) return { snapshot: compacted, rebuild: progress, rebuilt: false };
  const base = rebuiltBase(progress, settleMs);
  const polledAt = now();
  const changes = await log.readFrom(base.position);
  const { snapshot } = compactSnapshot(base, changes, polledAt, new Date(now()).toISOString(), settleMs);
  return { snapshot, rebuilt: true };
};

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

/** One run of the snapshot job: what it stored, and its summary for the log. */
const runSnapshotJob = async (
  log: VerdictLog,
  snapshots: VerdictSnapshotStore,
  now: () => number,
  budgetMs: number,
  settleMs: number,
) => {
  const deadline = now() + budgetMs - SNAPSHOT_TIMING.saveMarginMs;
  const [previous, pending] = await Promise.all([snapshots.latest(), snapshots.rebuild?.()]);
  const step = await nextSnapshot(log, previous, pending, { now, deadline, settleMs });
  if (step.snapshot !== undefined) await snapshots.save(step.snapshot);
  if (step.rebuild !== undefined || pending !== undefined) await snapshots.saveRebuild?.(step.rebuild);
  const summary = {
    position: step.snapshot?.position,
    version: step.snapshot?.version,
    keys: step.snapshot?.keys.length,
    rebuilt: step.rebuilt,
    ...(step.rebuild === undefined
      ? {}
      : { rebuilding: step.rebuild.shards.filter((cursor) => cursor !== true).length }),
  };
  return { stored: step.snapshot, summary };
};

/**
 * One run of the snapshot job: the next snapshot after the stored one, stored in its place, and
 * an unfinished rebuild kept for the next run. `budgetMs` is the run's time (the function's timeout).
 */
export const snapshotVerdicts = async (
  log: VerdictLog,
  snapshots: VerdictSnapshotStore,
  now: () => number,
  budgetMs = Number.POSITIVE_INFINITY,
  settleMs: number = LOG_TIMING.settleMs,
) => (await runSnapshotJob(log, snapshots, now, budgetMs, settleMs)).summary;

/** What the scheduled snapshot job reads and writes; without a store configured it cannot run. */
export type SnapshotJob = { log: VerdictLog; snapshots: VerdictSnapshotStore | undefined; now: () => number };

/**
 * The scheduled run of the snapshot job, which must store a snapshot: it fails (for the alarm)
 * without a configured store, or when only a rebuild with no snapshot to carry came of it (the
 * next run goes on with it). Returns the run's summary and the snapshot it stored.
 */
export const storeVerdictSnapshot = async (
  { log, snapshots, now }: SnapshotJob,
  budgetMs = Number.POSITIVE_INFINITY,
) => {
  if (snapshots === undefined) {
    throw new Error('No verdict snapshot location is configured (VERDICTS_BUCKET or VERDICTS_DIR)');
  }
  const { stored, summary } = await runSnapshotJob(log, snapshots, now, budgetMs, LOG_TIMING.settleMs);
  if (stored === undefined) {
    throw new Error(`No verdict snapshot yet: ${String(summary.rebuilding)} index shards left to read`);
  }
  return { summary, stored };
};
