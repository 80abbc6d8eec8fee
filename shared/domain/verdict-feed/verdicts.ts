import type { AssetType } from '../allowlist/asset-types.ts';
import type { CheckStatus, IndexEntry } from '../check/index.ts';

/**
 * The service's own verdicts as a change log. Every change of a check-index entry appends one
 * entry carrying the entry's state after the change and its per-key sequence number (1, 2, …),
 * so a reader that holds sequence n of a key and sees n + 2 knows it missed a change.
 */

/** The verdict bits of one key: what a check needs from its counters. */
export const BIT = { allow: 1, block: 2, watch: 4 } as const;

export const bitsOf = (entry: IndexEntry): number =>
  (entry.allow > 0 ? BIT.allow : 0) | (entry.block > 0 ? BIT.block : 0) | (entry.watch > 0 ? BIT.watch : 0);

/** At one key an allowlisting beats a threat, as in the check itself. */
export const statusOf = (bits: number): CheckStatus =>
  bits & BIT.allow ? 'ALLOWED' : bits & BIT.block ? 'BLOCKED' : 'UNKNOWN';

/** A watch flag as clients read it, with or without a verdict. */
export const watchStatusOf = (bits: number): 'ENABLED' | 'DISABLED' => (bits & BIT.watch ? 'ENABLED' : 'DISABLED');

export const isLive = (bits: number): boolean => (bits & (BIT.allow | BIT.block)) !== 0;

/** One index entry per bit pattern, shared, so a lookup allocates nothing. */
const ENTRIES: readonly IndexEntry[] = Array.from({ length: 8 }, (_, bits) =>
  Object.freeze({
    allow: bits & BIT.allow ? 1 : 0,
    block: bits & BIT.block ? 1 : 0,
    watch: bits & BIT.watch ? 1 : 0,
  }),
);
export const entryOfBits = (bits: number): IndexEntry | undefined => (isLive(bits) ? ENTRIES[bits] : undefined);

/** One change of one key: its state after the change, and where it sits in the log. */
export type VerdictChange = {
  key: string;
  type: AssetType | undefined;
  bits: number;
  seq: number;
  /** The log position of this change: a version string, ordered like the log. */
  version: string;
  changedAt: string;
};

/**
 * Versions order the log: `<epoch ms, 13 digits>-<16 hex of the key's digest>-<seq, 12 digits>`.
 * Plain string comparison orders them by time, then key, then sequence; a bare 13-digit time is
 * a position between entries (before every entry of that millisecond).
 */
const TIME_DIGITS = 13;
export const positionAt = (ms: number): string => String(Math.max(0, Math.floor(ms))).padStart(TIME_DIGITS, '0');
export const versionOf = (ms: number, keyHash: string, seq: number): string =>
  `${positionAt(ms)}-${keyHash.slice(0, 16)}-${String(seq).padStart(12, '0')}`;
export const VERSION_PATTERN = /^\d{13}(?:-[0-9a-f]{16}-\d{12})?$/;
export const isVersion = (text: string): boolean => VERSION_PATTERN.test(text);
/** The time (epoch ms) of a version or position. */
export const timeOf = (version: string): number => Number(version.slice(0, TIME_DIGITS));

/** A compact, versioned copy of the whole index: every key ever indexed with its bits and sequence. */
export type VerdictSnapshot = {
  format: 1;
  /** Every change stamped before this position is in the snapshot. */
  position: string;
  /** The newest change the snapshot holds (`position` when the log held none). */
  version: string;
  createdAt: string;
  /** When the entries were last read from the index itself (a rebuild) rather than carried forward from the log. */
  scannedAt: string;
  keys: string[];
  /** `keys[i]`'s state: `seq * 8 + bits`. */
  states: number[];
};

export const pack = (seq: number, bits: number): number => seq * 8 + bits;
export const seqOf = (packed: number): number => Math.floor(packed / 8);
export const bitsOfPacked = (packed: number): number => packed % 8;

/**
 * One page of one shard of the index: entries with their state, the newest change among them,
 * and where the shard goes on (absent at its end). `next` is opaque to the caller.
 */
export type IndexPage = { keys: string[]; states: number[]; newest?: string; next?: string };

/**
 * Which partitions of the log a read visits: the day's shards, and the hourly partitions an
 * earlier version wrote every change to (both unless told otherwise).
 */
export type LogLayouts = { shards?: boolean; legacy?: boolean };

/** Reads the log and the index; implemented by the repository. */
export interface VerdictLog {
  /** Every change stamped at or after `from` (a position or version), in version order, from the partitions of `layouts`. */
  readFrom(from: string, signal?: AbortSignal, layouts?: LogLayouts): Promise<VerdictChange[]>;
  /** How many shards the index is read in (pages of different shards may be read at once). */
  readonly indexShards: number;
  /**
   * A page of the index's shard `shard`, from `cursor` (a page's `next`) or its start. The index
   * lags the entries by a moment (an eventually consistent secondary index), and an entry changed
   * while a shard is read may come twice: the caller keeps its highest sequence and replays the
   * log from before the read began.
   */
  readIndexPage(shard: number, cursor?: string): Promise<IndexPage>;
}

/** A read of the whole index under way, kept between runs of the snapshot job. */
export type IndexRebuild = {
  format: 1;
  /** When the read began (epoch ms): the log is replayed from a little before it. */
  startedAt: number;
  /** Per shard: `true` when read to its end, else where it goes on (`null`: not begun). */
  shards: (string | true | null)[];
  keys: string[];
  states: number[];
  newest?: string;
};

export interface VerdictSnapshotStore {
  latest(): Promise<VerdictSnapshot | undefined>;
  save(snapshot: VerdictSnapshot): Promise<void>;
  /** A rebuild left unfinished by an earlier run; a store without these runs a rebuild to its end in one run. */
  rebuild?(): Promise<IndexRebuild | undefined>;
  /** Keeps an unfinished rebuild, or (`undefined`) forgets the finished one. */
  saveRebuild?(rebuild: IndexRebuild | undefined): Promise<void>;
}

export type ChangesPage = { changes: VerdictChange[]; next?: string };

/** The log as clients page through it. */
export interface ChangeFeed {
  /**
   * Changes after `after` (exclusive), stamped before `until`, that changed a verdict, in version
   * order: at most `limit`; `next` is where to go on when the range was not read to its end.
   */
  changes(range: { after: string; until: string; limit: number; type?: AssetType }): Promise<ChangesPage>;
}
