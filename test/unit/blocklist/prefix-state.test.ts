import { describe, expect, it } from 'vitest';
import { fullHash, prefixOf } from '../../../shared/domain/blocklist/expressions.ts';
import { PrefixState } from '../../../shared/domain/blocklist/prefix-state.ts';

/** Two host keys whose expressions share a 32-bit prefix (a birthday search over a few hundred thousand names). */
const colliding = (): [string, string] => {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const key = `collide-${i}.example`;
    const prefix = prefixOf(fullHash(`${key}/`));
    const other = seen.get(prefix);
    if (other !== undefined) return [other, key];
    seen.set(prefix, key);
  }
};

describe('the prefix state', () => {
  const [first, second] = colliding();
  const prefix = prefixOf(fullHash(`${first}/`));

  it('keeps a prefix while any of the expressions under it is blocked, with each full hash', () => {
    const state = new PrefixState();
    state.rebase(new Uint32Array());
    state.set(first, true);
    state.set(second, true);

    const both = state.hashesOf(prefix);
    state.set(first, false);
    const one = state.hashesOf(prefix);
    const stillAdded = state.recent();
    state.set(second, false);

    expect([...both].sort()).toEqual([fullHash(`${first}/`), fullHash(`${second}/`)].sort());
    expect(one).toEqual([fullHash(`${second}/`)]);
    expect(stillAdded.added).toEqual(Uint32Array.of(prefix));
    expect(state.hashesOf(prefix)).toEqual([]);
    expect(state.recent()).toEqual({ added: new Uint32Array(), removed: new Uint32Array() });
  });

  it('lists a base prefix as removed once nothing under it is blocked, and as nothing once it is back', () => {
    const state = new PrefixState();
    state.set(first, true);
    state.set(second, true);
    state.rebase(state.prefixes());

    state.set(first, false);
    const partly = state.recent();
    state.set(second, false);
    const gone = state.recent();
    state.set(second, true);

    expect(partly.removed).toEqual(new Uint32Array());
    expect(gone.removed).toEqual(Uint32Array.of(prefix));
    expect(state.recent()).toEqual({ added: new Uint32Array(), removed: new Uint32Array() });
  });
});
