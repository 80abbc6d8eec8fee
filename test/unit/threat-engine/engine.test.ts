import { describe, expect, it } from 'vitest';
import { brandProfile, evaluateThreat } from '../../../shared/domain/threat-engine/engine.ts';
import { skeletonOf } from '../../../shared/domain/threat-engine/skeleton.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const ACME = brandProfile('acme', [{ slug: 'acme-wallet', name: 'Acme Wallet' }], ['acme.com']);
const names = (content: string, profile = ACME) =>
  evaluateThreat(suffixes, content, profile).signals.map((signal) => signal.name);

describe('evaluateThreat', () => {
  it('scores a brand name with an added keyword on a cheap ending MALICIOUS, naming each signal', () => {
    const result = evaluateThreat(suffixes, 'https://acme-wallet-airdrop.xyz/claim', ACME);

    expect(result.verdict).toBe('MALICIOUS');
    expect(result.signals.map((signal) => signal.name)).toEqual([
      'brand-term',
      'suspicious-keyword',
      'added-keyword',
      'cheap-tld',
    ]);
    expect(result.score).toBe(
      Math.min(
        100,
        result.signals.reduce((sum, signal) => sum + signal.weight, 0),
      ),
    );
  });

  it('finds a Cyrillic homoglyph and the mixed script of its label', () => {
    expect(names('https://аcme.com')).toEqual(['homoglyph', 'punycode-host', 'mixed-script']);
  });

  it('finds an ASCII homoglyph by its UTS #39 skeleton (rn for m)', () => {
    expect(names('acrne.com')).toEqual(['homoglyph']);
  });

  it('finds a swapped ending of an allowlisted domain', () => {
    expect(names('acme.net')).toEqual(['tld-swap']);
  });

  it('finds a name one edit, or one swap of neighbours, from a brand term', () => {
    expect(evaluateThreat(suffixes, 'amce.com', ACME).signals).toEqual([
      { name: 'edit-distance', weight: 60, detail: 'amce is 1 edit from acme' },
    ]);
  });

  it('finds a lookalike account on a platform', () => {
    expect(evaluateThreat(suffixes, 'https://x.com/acme_wallet_support', ACME).verdict).toBe('MALICIOUS');
  });

  it("answers BENIGN for the organization's own domains and allowlisted content, whatever they contain", () => {
    expect(evaluateThreat(suffixes, 'https://app.acme.com/claim-airdrop', ACME).verdict).toBe('BENIGN');
    expect(evaluateThreat(suffixes, 'acme-airdrop.xyz', ACME, { status: 'ALLOWED', source: 'service' })).toEqual({
      verdict: 'BENIGN',
      score: 0,
      signals: [{ name: 'allowlisted', weight: -100, detail: 'allowlisted (service)' }],
    });
  });

  it('scores content the service or an external list blocks MALICIOUS', () => {
    expect(evaluateThreat(suffixes, 'plain-shop.com', ACME, { status: 'BLOCKED', source: 'service' }).verdict).toBe(
      'MALICIOUS',
    );
    expect(evaluateThreat(suffixes, 'plain-shop.com', ACME, { status: 'BLOCKED', source: 'seal' }).verdict).toBe(
      'MALICIOUS',
    );
  });

  it('answers BENIGN for an unrelated domain and UNKNOWN for text that is no asset', () => {
    expect(evaluateThreat(suffixes, 'wikipedia.org', ACME)).toEqual({ verdict: 'BENIGN', score: 0, signals: [] });
    expect(evaluateThreat(suffixes, 'just some words', ACME).verdict).toBe('UNKNOWN');
  });
});

describe('brandProfile', () => {
  it('takes included terms less excluded ones where a brand has them, else its name and slug', () => {
    const profile = brandProfile(
      'globex',
      [
        { slug: 'globex-pay', name: 'Globex Pay', includedTerms: ['GlobexPay', 'gpay'], excludedTerms: ['gpay'] },
        { slug: 'hank', name: 'Hank Scorpio' },
      ],
      ['Globex.com'],
      ['GBX'],
    );

    expect(profile).toEqual({ terms: ['globex', 'globexpay', 'hank-scorpio', 'hank', 'gbx'], domains: ['globex.com'] });
  });
});

describe('skeletonOf', () => {
  it('maps confusable characters to their UTS #39 prototypes', () => {
    expect(skeletonOf('раураl')).toBe(skeletonOf('paypal'));
    expect(skeletonOf('g1obex')).toBe(skeletonOf('globex'));
  });
});
