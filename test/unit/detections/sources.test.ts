import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { matchNames, namesOf } from '../../../shared/domain/detections/certstream.ts';
import { permutations } from '../../../shared/domain/detections/dnstwist.ts';
import { PERMUTATION_FAMILIES, sourceOf, validateConfig } from '../../../shared/domain/detections/sources.ts';
import { BadRequestError } from '../../../shared/errors.ts';
import { logEntry } from '../../fixtures/certificates.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

describe('DNS_TWIST permutations', () => {
  const all = permutations(suffixes, 'acme.com');

  it('generates every family, each name once, never the domain itself, all valid ASCII hosts', () => {
    expect(new Set(all.map((p) => p.family))).toEqual(new Set(PERMUTATION_FAMILIES));
    expect(new Set(all.map((p) => p.domain)).size).toBe(all.length);
    expect(all.map((p) => p.domain)).not.toContain('acme.com');
    for (const { domain } of all) expect(domain).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
  });

  it('keeps the public suffix of a multi-label ending and swaps it only in the TLD family', () => {
    const uk = permutations(suffixes, 'example.co.uk');

    expect(uk.filter((p) => p.family !== 'tld-swap').every((p) => p.domain.endsWith('.co.uk'))).toBe(true);
    expect(uk.filter((p) => p.family === 'tld-swap').map((p) => p.domain)).toContain('example.com');
  });

  it('includes the classic typos of each family', () => {
    const names = new Set(all.map((p) => p.domain));

    for (const typo of [
      'acm.com',
      'acmme.com',
      'amce.com',
      'a-cme.com',
      'ac.me.com',
      'acne.com',
      'acmea.com',
      'acme.xyz',
      'xn--cme-5cd.com',
    ]) {
      expect(names, typo).toContain(typo);
    }
  });

  it('swaps lookalikes across a window and in two kinds at once, the two-kind names last so a cap cuts them first', () => {
    const names = all.map((p) => p.domain);
    const twoKinds = domainToASCII('àcmé.com');
    const window = permutations(suffixes, 'aaa.com').map((p) => p.domain);

    expect(window).toContain(domainToASCII('ààa.com'));
    expect(names).toContain(twoKinds);
    const firstTwoKind = names.indexOf(twoKinds);
    const singles = permutations(suffixes, 'acme.com', {
      families: PERMUTATION_FAMILIES.filter((f) => f !== 'homoglyph'),
    });
    expect(firstTwoKind).toBeGreaterThan(names.indexOf(singles.at(-1)?.domain ?? ''));
    expect(permutations(suffixes, 'acme.com', { max: firstTwoKind }).map((p) => p.domain)).not.toContain(twoKinds);
  });
});

describe('config validation against a source schema', () => {
  const dnsTwist = sourceOf('DNS_TWIST');
  if (dnsTwist === undefined) throw new Error('DNS_TWIST missing');

  it('keeps a config as sent: defaults apply at run time', () => {
    const certstream = sourceOf('CERTSTREAM');
    if (certstream === undefined) throw new Error('CERTSTREAM missing');

    expect(validateConfig(certstream, { logs: ['https://ct.example/log/'] })).toEqual({
      logs: ['https://ct.example/log/'],
    });
  });

  it('accepts {} and a conforming config', () => {
    expect(validateConfig(dnsTwist, {})).toEqual({});
    expect(validateConfig(dnsTwist, { domains: ['acme.com'], families: ['homoglyph'], maxPermutations: 10 })).toEqual({
      domains: ['acme.com'],
      families: ['homoglyph'],
      maxPermutations: 10,
    });
  });

  it.each([
    [{ domains: 'acme.com' }, 'body.config.domains', 'config.domains must be an array'],
    [
      { families: ['homoglyph', 'typo'] },
      'body.config.families.1',
      `config.families.1 must be one of ${PERMUTATION_FAMILIES.join(', ')}`,
    ],
    [{ maxPermutations: 0 }, 'body.config.maxPermutations', 'config.maxPermutations must be at least 1'],
    [{ maxPermutations: 20001 }, 'body.config.maxPermutations', 'config.maxPermutations must be at most 20000'],
    [{ maxPermutations: 1.5 }, 'body.config.maxPermutations', 'config.maxPermutations must be an integer'],
    [{ maxPermutations: '10' }, 'body.config.maxPermutations', 'config.maxPermutations must be an integer'],
    [{ query: 'x' }, 'body.config.query', 'config.query is not a known setting'],
    [{ domains: Array(21).fill('acme.com') }, 'body.config.domains', 'config.domains must have at most 20 items'],
    [{ domains: ['acme.com', 42] }, 'body.config.domains.1', 'config.domains.1 must be a string'],
    [{ domains: ['acme.com', 'acme'] }, 'body.config.domains.1', 'config.domains.1 is not in the expected form'],
    [{ tlds: ['a'.repeat(25)] }, 'body.config.tlds.0', 'config.tlds.0 must be at most 24 characters'],
    [[], 'body.config', 'config must be an object'],
    [null, 'body.config', 'config must be an object'],
  ])('answers %j with a 400 naming %s', (config, path, message) => {
    let caught: unknown;
    try {
      validateConfig(dnsTwist, config);
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(BadRequestError);
    expect((caught as BadRequestError).message).toBe(message);
    expect((caught as BadRequestError).issues).toEqual([{ message, path }]);
  });
});

describe('certificate-transparency entries and the name prefilter', () => {
  it('reads the SAN names of an X.509 entry and of a precertificate entry', () => {
    expect(namesOf(logEntry(['acme-login.xyz', 'www.acme-login.xyz'], 5))).toEqual([
      'acme-login.xyz',
      'www.acme-login.xyz',
    ]);
    expect(namesOf(logEntry(['xn--cme-5cd.com'], 6, true))).toEqual(['xn--cme-5cd.com']);
    expect(namesOf({ leaf_input: Buffer.from([0, 0, 1]).toString('base64'), extra_data: '' })).toEqual([]);
  });

  it('passes names holding a term, one edit from it, or a homoglyph of it, and drops the rest', () => {
    const names = [
      '*.acme-login.xyz',
      'amce.com',
      'acmme.io',
      'xn--cme-5cd.com',
      'bluecloud.com',
      'maple.dev',
      'acme-login.xyz',
    ];

    expect(matchNames(names, ['acme'])).toEqual(['acme-login.xyz', 'amce.com', 'acmme.io', 'xn--cme-5cd.com']);
  });
});
