import { domainToASCII, domainToUnicode } from 'node:url';
import { describe, expect, it } from 'vitest';
import { permutations } from '../../shared/domain/detections/dnstwist.ts';
import { suffixes } from '../fixtures/suffixes.ts';

const familyOf = (domain: string, name: string) =>
  permutations(suffixes, domain).find((permutation) => permutation.domain === name)?.family;

describe('DNS_TWIST lookalike families', () => {
  it.each([
    ['metamask.io', 'meta1mask.io', 'insertion'],
    ['uniswap.org', 'uniswam.org', 'replacement'],
    ['acme.com', 'ycme.com', 'replacement'],
    ['acme.com', '2cme.com', 'replacement'],
  ])('types a neighbour key of any layout: %s gives %s', (domain, name, family) => {
    expect(familyOf(domain, name)).toBe(family);
  });

  it('types the neighbours of a key on QWERTY, QWERTZ and AZERTY', () => {
    const names = permutations(suffixes, 'lazy.com', { families: ['replacement'] }).map(
      (permutation) => permutation.domain,
    );

    expect(names).toContain('lszy.com');
    expect(names).toContain('lyzy.com');
    expect(names).toContain('l2zy.com');
  });

  it('folds the suffix into the label, and moves a two-label suffix', () => {
    const tldSwaps = (domain: string) =>
      permutations(suffixes, domain, { families: ['tld-swap'], tlds: [] }).map((permutation) => permutation.domain);

    expect(tldSwaps('metamask.io')).toEqual(['metamaskio.io', 'metamask-io.com']);
    expect(tldSwaps('acme.com')).toEqual(['acmecom.com']);
    expect(tldSwaps('bbc.co.uk')).toEqual(['bbc.uk', 'bbcco.uk']);
  });

  it('writes a name wholly in Cyrillic twins only when every letter has one', () => {
    const cyrillicLabels = (domain: string) =>
      permutations(suffixes, domain, { families: ['homoglyph'] })
        .map((permutation) => domainToUnicode(permutation.domain).split('.')[0] ?? '')
        .filter((label) => /^\p{Script=Cyrillic}+$/u.test(label));

    expect(cyrillicLabels('acme.com')).toEqual(['асме']);
    expect(cyrillicLabels('uniswap.org')).toEqual([]);
  });

  it('swaps digits for lookalikes and lookalikes for digits', () => {
    const names = permutations(suffixes, '1inch.io', { families: ['homoglyph'] }).map(
      (permutation) => permutation.domain,
    );

    expect(names).toContain('linch.io');
    expect(names).toContain('11nch.io');
    expect(names).toContain(domainToASCII('1ınch.io'));
  });
});
