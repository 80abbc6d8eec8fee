import { afterEach, describe, expect, it } from 'vitest';
import { suffixFile } from '../../../shared/db/adapters/public-suffix-file.ts';
import { publicSuffixLength, useSuffixSource } from '../../../shared/domain/check/index.ts';

describe('the check’s suffix data port', () => {
  afterEach(() => useSuffixSource(suffixFile));

  it('answers from the installed source, read on the first lookup after it is installed', () => {
    let reads = 0;
    useSuffixSource(() => {
      reads++;
      return { rules: '1test(1shop)', exceptions: '' };
    });

    const lengths = ['a.shop.test', 'a.other.test', 'a.example.com'].map((host) => publicSuffixLength(host, false));

    expect(lengths).toEqual(['shop.test'.length, 'test'.length, 'com'.length]);
    expect(reads).toBe(1);
  });

  it('replaces the previous data when another source is installed', () => {
    useSuffixSource(() => ({ rules: '1test(1shop)', exceptions: '' }));
    publicSuffixLength('a.shop.test', false);

    useSuffixSource(() => ({ rules: '1test', exceptions: '' }));

    expect(publicSuffixLength('a.shop.test', false)).toBe('test'.length);
  });
});
