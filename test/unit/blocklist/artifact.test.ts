import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeArtifact, encodeArtifact, sortedUnique, tokenOf } from '../../../shared/domain/blocklist/artifact.ts';
import { fullHash, prefixOf } from '../../../shared/domain/blocklist/expressions.ts';
import { seededRandom } from '../../fixtures/verdicts.ts';

const randomPrefixes = (count: number, seed: number) => {
  const random = seededRandom(seed);
  return sortedUnique(Array.from({ length: count }, () => Math.floor(random() * 2 ** 32)));
};

describe('blocklist artifacts', () => {
  it.each([
    ['no prefix', new Uint32Array()],
    ['one prefix', Uint32Array.of(0xdeadbeef)],
    ['the extremes and their neighbours', Uint32Array.of(0, 1, 2, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff)],
    ['10,000 random prefixes', randomPrefixes(10_000, 3)],
    ['a dense run', Uint32Array.from({ length: 5_000 }, (_, i) => 1_000_000 + i)],
  ])('decodes a snapshot of %s to the same prefixes', (_, prefixes) => {
    const bytes = encodeArtifact({ kind: 'snapshot', algoVersion: 1, prefixes });

    expect(decodeArtifact(bytes)).toEqual({ kind: 'snapshot', algoVersion: 1, prefixes });
  });

  it('decodes a lists artifact to its prefixes and its look-alike rule', () => {
    const prefixes = randomPrefixes(2_000, 7);
    const lookalikes = { tolerance: 2, domains: ['metamask.io', 'myetherwallet.com', 'xn--mtamask-dya.io'] };

    expect(decodeArtifact(encodeArtifact({ kind: 'lists', algoVersion: 1, prefixes, lookalikes }))).toEqual({
      kind: 'lists',
      algoVersion: 1,
      prefixes,
      lookalikes,
    });
  });

  it('refuses a lists artifact whose look-alike rule is cut short', () => {
    const bytes = encodeArtifact({
      kind: 'lists',
      algoVersion: 1,
      prefixes: Uint32Array.of(7),
      lookalikes: { tolerance: 2, domains: ['metamask.io'] },
    });
    const plain = gunzipSync(bytes);

    expect(() => decodeArtifact(gzipSync(plain.subarray(0, plain.length - 3)))).toThrow(
      'Not a blocklist artifact: truncated look-alike domain',
    );
  });

  it('decodes a recent artifact to its added and removed lists', () => {
    const added = randomPrefixes(300, 5);
    const removed = randomPrefixes(40, 6);

    expect(decodeArtifact(encodeArtifact({ kind: 'recent', algoVersion: 1, added, removed }))).toEqual({
      kind: 'recent',
      algoVersion: 1,
      added,
      removed,
    });
  });

  it('writes the documented header: magic, algoVersion, kind, then each list’s count', () => {
    const bytes = encodeArtifact({
      kind: 'recent',
      algoVersion: 1,
      added: Uint32Array.of(5, 9),
      removed: new Uint32Array(),
    });
    const plain = gunzipSync(bytes);

    expect([...plain.subarray(0, 6)]).toEqual([0x41, 0x50, 0x42, 0x4c, 1, 2]);
    expect(plain.readUInt32BE(6)).toBe(2);
    // k, the gap bytes, the first prefix; then the removed list's count.
    expect(plain.readUInt32BE(15)).toBe(5);
    expect(plain.readUInt32BE(15 + 4 + plain.readUInt32BE(11))).toBe(0);
  });

  it('codes the prefixes of a million expressions in under 2 bytes each', () => {
    const prefixes = sortedUnique(
      Array.from({ length: 1_000_000 }, (_, i) => prefixOf(fullHash(`host-${i}.example/`))),
    );

    const bytes = encodeArtifact({ kind: 'snapshot', algoVersion: 1, prefixes });

    expect(bytes.length / prefixes.length).toBeLessThan(2);
  });

  it('refuses bytes that are not an artifact', () => {
    expect(() => decodeArtifact(gzipSync(Buffer.from('NOPE\u0001\u0001')))).toThrow(
      'Not a blocklist artifact: bad magic',
    );
    expect(() =>
      decodeArtifact(gzipSync(Buffer.from('APBL\u0001\u0009\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000'))),
    ).toThrow('Not a blocklist artifact: unknown kind 9');
  });

  it('names equal content with equal tokens and different content with different ones', () => {
    const a = encodeArtifact({ kind: 'snapshot', algoVersion: 1, prefixes: Uint32Array.of(1, 2, 3) });
    const b = encodeArtifact({ kind: 'snapshot', algoVersion: 1, prefixes: Uint32Array.of(1, 2, 3) });
    const c = encodeArtifact({ kind: 'snapshot', algoVersion: 1, prefixes: Uint32Array.of(1, 2, 4) });

    expect(tokenOf(a)).toBe(tokenOf(b));
    expect(tokenOf(a)).not.toBe(tokenOf(c));
    expect(tokenOf(a)).toMatch(/^[0-9a-f]{32}$/);
  });
});
