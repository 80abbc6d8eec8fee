import { hashesOf, type IndexEntry, KeyTable } from '../check/index.ts';
import { LOG_TIMING } from './timing.ts';
import {
  bitsOfPacked,
  entryOfBits,
  isLive,
  pack,
  positionAt,
  seqOf,
  type VerdictChange,
  type VerdictSnapshot,
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
