import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashesOf, KeyTable, recentHashOf } from '../../../shared/domain/check/key-table.ts';

const SEED = Number(process.env.FC_SEED ?? 20261123);

/** Few distinct characters, so keys share prefixes, lengths and hashes' tags often. */
const key = fc.string({ unit: fc.constantFrom('a', 'b', '.', '/', 'é', '\ud83d\ude00', ''), maxLength: 6 });
const operation = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constant('set' as const), key, fc.nat(0x7fffffff)) },
  { weight: 2, arbitrary: fc.tuple(fc.constant('get' as const), key, fc.constant(0)) },
);

describe('key table', () => {
  it('answers every lookup as a Map does, through updates and growth from an undersized start', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 3_000 }), fc.nat(8), (operations, expected) => {
        const table = new KeyTable(expected, expected);
        const map = new Map<string, number>();

        for (const [kind, k, value] of operations) {
          if (kind === 'set') {
            table.set(k, value);
            map.set(k, value);
          } else {
            expect(table.get(k)).toBe(map.get(k));
          }
        }

        expect(table.size).toBe(map.size);
        expect(new Map(table.entries())).toEqual(map);
      }),
      { numRuns: 60, seed: SEED },
    );
  });

  it("answers by a check's remembered key hashes as by the keys alone, for keys that begin one another, repeat or change in place", () => {
    // A check's keys: the first, some that begin it (page and host keys), others (parents).
    const checkKeys = fc
      .tuple(key, fc.array(fc.oneof(fc.nat(6), key), { maxLength: 5 }))
      .map(([first, rest]) => [first, ...rest.map((k) => (typeof k === 'number' ? first.slice(0, k) : k))]);
    const step = fc.record({ keys: checkKeys, inPlace: fc.boolean(), held: fc.array(fc.boolean(), { maxLength: 6 }) });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 20 }), (steps) => {
        const table = new KeyTable();
        let keys: string[] = [];
        for (const { keys: next, inPlace, held } of steps) {
          // The same array with other keys in it must not be answered with the hashes of the old ones.
          if (inPlace) keys.splice(0, keys.length, ...next);
          else keys = [...next];
          for (const [i, k] of keys.entries()) if (held[i]) table.set(k, i);
          const others = keys.map((k) => `${k}x`);

          const byKey = keys.map((k) => table.get(k));
          const first = Array.from(hashesOf(keys));
          hashesOf(keys);
          const again = hashesOf(keys);

          expect(keys.map((k, i) => table.get(k, first[i]))).toEqual(byKey);
          expect(keys.map((k, i) => table.get(k, again[i]))).toEqual(byKey);
          expect(keys.map((k) => table.get(k, recentHashOf(k)))).toEqual(byKey);
          expect(others.map((k) => table.get(k, recentHashOf(k)))).toEqual(others.map((k) => table.get(k)));
        }
      }),
      { numRuns: 200, seed: SEED },
    );
  });

  it('holds a million keys and answers absent ones as absent', () => {
    const table = new KeyTable();
    for (let i = 0; i < 1_000_000; i++) table.set(`site-${i}.example`, i);

    const held = [0, 1, 524_287, 999_999].map((i) => table.get(`site-${i}.example`));
    const absent = ['site-1000000.example', 'site-1.exampl', 'site-1.example/', ''].map((k) => table.get(k));

    expect(held).toEqual([0, 1, 524_287, 999_999]);
    expect(absent).toEqual([undefined, undefined, undefined, undefined]);
    expect(table.size).toBe(1_000_000);
  });

  it('tells apart two keys of one length whose hashes are equal', () => {
    const table = new KeyTable();
    // FNV-1a gives both 32-bit hashes the same value.
    table.set('k0062vu.example', 1);
    table.set('k00duea.example', 2);

    expect([table.get('k0062vu.example'), table.get('k00duea.example'), table.size]).toEqual([1, 2, 2]);
  });

  it('refuses a value it cannot hold', () => {
    const table = new KeyTable();

    expect(() => table.set('a', 2 ** 31)).toThrow(RangeError);
    expect(() => table.set('a', -1)).toThrow(RangeError);
    expect(table.get('a')).toBeUndefined();
  });
});
