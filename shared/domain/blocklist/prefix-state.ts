import type { PublicSuffixes } from '../check/index.ts';
import { holds, sortedUnique } from './artifact.ts';
import { entryExpressions, expressionsOf, fullHash, prefixOf } from './expressions.ts';

/**
 * The prefixes of every BLOCKED entry's expressions with their full hashes, and how they differ
 * from a base (the prefixes of the snapshot artifact clients start from): a prefix that appears
 * or disappears moves into or out of `added` and `removed` as it happens, so the recent feed is
 * never recomputed from the whole set.
 */
export class PrefixState {
  /** Full hashes (hex) by prefix, a lone one as itself (most prefixes have one); a prefix is present while it has one. */
  readonly #hashes = new Map<number, string | string[]>();
  #base: Uint32Array = new Uint32Array();
  readonly #added = new Set<number>();
  readonly #removed = new Set<number>();
  /** Until the first base, the state is being loaded: `added` and `removed` wait for `rebase`. */
  #tracking = false;
  /** Moves each time `added` or `removed` changes. */
  changes = 0;

  get count(): number {
    return this.#hashes.size;
  }

  /** Blocks (or, `blocked` false, unblocks) the expressions of one check-index key. */
  set(key: string, blocked: boolean): void {
    for (const expression of entryExpressions(key)) {
      const hex = fullHash(expression);
      const prefix = prefixOf(hex);
      const held = this.#hashes.get(prefix);
      if (blocked) {
        if (held === undefined) {
          this.#hashes.set(prefix, hex);
          this.#appeared(prefix);
        } else if (typeof held === 'string') {
          if (held !== hex) this.#hashes.set(prefix, [held, hex]);
        } else if (!held.includes(hex)) held.push(hex);
      } else if (held === hex) {
        this.#hashes.delete(prefix);
        this.#disappeared(prefix);
      } else if (typeof held !== 'string' && held?.includes(hex)) {
        const rest = held.filter((other) => other !== hex);
        this.#hashes.set(prefix, rest.length === 1 ? (rest[0] as string) : rest);
      }
    }
  }

  #appeared(prefix: number) {
    if (!this.#tracking) return;
    if (holds(this.#base, prefix)) this.#removed.delete(prefix);
    else this.#added.add(prefix);
    this.changes++;
  }

  #disappeared(prefix: number) {
    if (!this.#tracking) return;
    if (holds(this.#base, prefix)) this.#removed.add(prefix);
    else this.#added.delete(prefix);
    this.changes++;
  }

  /** The full hashes under a prefix (empty when none is current). */
  hashesOf(prefix: number): readonly string[] {
    const held = this.#hashes.get(prefix);
    return held === undefined ? [] : typeof held === 'string' ? [held] : held;
  }

  /** Every current prefix, sorted. */
  prefixes(): Uint32Array {
    return sortedUnique(this.#hashes.keys());
  }

  /** Measures `added` and `removed` from a new base (sorted, unique). */
  rebase(base: Uint32Array): void {
    this.#base = base;
    this.#tracking = true;
    this.#added.clear();
    this.#removed.clear();
    for (const prefix of this.#hashes.keys()) if (!holds(base, prefix)) this.#added.add(prefix);
    for (const prefix of base) if (!this.#hashes.has(prefix)) this.#removed.add(prefix);
    this.changes++;
  }

  recent(): { added: Uint32Array; removed: Uint32Array } {
    return { added: sortedUnique(this.#added), removed: sortedUnique(this.#removed) };
  }
}

/**
 * The ALLOWED entries that mask a BLOCKED one: at one URL the check's most specific entry decides,
 * so an allowlisted `good.evil.example` (or `evil.example/help`) keeps its URLs ALLOWED under a
 * blocked `evil.example`. Each ALLOWED entry's full hashes are listed under the prefix of every
 * less specific expression it is consulted before, so a client confirming that prefix learns them.
 */
export class AllowMasks {
  readonly #under = new Map<number, Set<string>>();
  readonly #suffixes: PublicSuffixes;
  /** The ALLOWED expressions' full hashes under their own prefixes. */
  readonly #own = new Map<number, Set<string>>();

  constructor(suffixes: PublicSuffixes) {
    this.#suffixes = suffixes;
  }

  set(key: string, allowed: boolean): void {
    const own = entryExpressions(key).map((expression) => fullHash(expression));
    for (const hash of own) {
      const prefix = prefixOf(hash);
      const held = this.#own.get(prefix);
      if (allowed) {
        if (held === undefined) this.#own.set(prefix, new Set([hash]));
        else held.add(hash);
      } else if (held !== undefined) {
        held.delete(hash);
        if (held.size === 0) this.#own.delete(prefix);
      }
    }
    for (const expression of expressionsOf(this.#suffixes, key).slice(1)) {
      const prefix = prefixOf(fullHash(expression));
      const held = this.#under.get(prefix);
      if (allowed) {
        if (held === undefined) this.#under.set(prefix, new Set(own));
        else for (const hash of own) held.add(hash);
      } else if (held !== undefined) {
        for (const hash of own) held.delete(hash);
        if (held.size === 0) this.#under.delete(prefix);
      }
    }
  }

  /** Full hashes of ALLOWED expressions of this prefix. */
  own(prefix: number): readonly string[] {
    const held = this.#own.get(prefix);
    return held === undefined ? [] : [...held];
  }

  /** Full hashes of ALLOWED expressions consulted before an expression of this prefix. */
  under(prefix: number): readonly string[] {
    const held = this.#under.get(prefix);
    return held === undefined ? [] : [...held];
  }
}
