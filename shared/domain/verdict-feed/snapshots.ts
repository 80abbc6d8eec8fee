import { KeyTable } from '../check/index.ts';
import { VerdictState } from './state.ts';
import { LOG_TIMING, SNAPSHOT_TIMING } from './timing.ts';
import {
  type IndexRebuild,
  pack,
  positionAt,
  seqOf,
  timeOf,
  type VerdictChange,
  type VerdictLog,
  type VerdictSnapshot,
  type VerdictSnapshotStore,
} from './verdicts.ts';

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
export const scanned = async (log: VerdictLog, now: () => number, settleMs: number): Promise<VerdictState> =>
  VerdictState.of(await readWholeIndex(log, now, settleMs));

export const expired = (position: string, now: number) =>
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
