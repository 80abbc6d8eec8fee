import { describe, expect, it } from 'vitest';
import { canonicalize, LEVEL, publicSuffixes, publicSuffixLength } from '../../../shared/domain/check/index.ts';

describe('the check’s suffix data', () => {
  it('reads its source once, on the first lookup', () => {
    let reads = 0;
    const suffixes = publicSuffixes(() => {
      reads++;
      return { rules: '1test(1shop)', exceptions: '' };
    });

    const before = reads;
    const lengths = ['a.shop.test', 'a.other.test', 'a.example.com'].map((host) =>
      publicSuffixLength(suffixes, host, false),
    );

    expect(before).toBe(0);
    expect(lengths).toEqual(['shop.test'.length, 'test'.length, 'com'.length]);
    expect(reads).toBe(1);
  });

  it('gives each table its own answers in one process, whichever was looked up first', () => {
    const withShop = publicSuffixes(() => ({ rules: '1test(1shop)', exceptions: '' }));
    const withoutShop = publicSuffixes(() => ({ rules: '1test', exceptions: '' }));

    const first = canonicalize(withShop, 'https://login.acme.shop.test/');
    const second = canonicalize(withoutShop, 'https://login.acme.shop.test/');
    const firstAgain = canonicalize(withShop, 'https://login.acme.shop.test/');

    expect(first).toEqual({
      kind: 'keys',
      keys: ['login.acme.shop.test', 'acme.shop.test'],
      levels: [LEVEL.exact, LEVEL.parent],
      domain: 'login.acme.shop.test',
    });
    expect(second).toEqual({
      kind: 'keys',
      keys: ['login.acme.shop.test', 'acme.shop.test', 'shop.test'],
      levels: [LEVEL.exact, LEVEL.parent, LEVEL.parent],
      domain: 'login.acme.shop.test',
    });
    expect(firstAgain).toEqual(first);
  });
});
