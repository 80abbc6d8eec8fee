import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalHost } from '../../../shared/domain/check/canonical.ts';
import { plainUrl } from '../../../shared/domain/check/plain-url.ts';

const SEED = Number(process.env.FC_SEED ?? 20261123);

/** Mostly `plain`; one time in seven, `piece` between two optional `plain` parts. */
const mostlyPlain = (plain: fc.Arbitrary<string>, piece: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 6, arbitrary: plain },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.option(plain, { nil: '' }), piece, fc.option(plain, { nil: '' }))
        .map((parts) => parts.join('')),
    },
  );

const plainLabel = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'.split('')),
  minLength: 1,
  maxLength: 8,
});
/** Pieces the WHATWG parser rewrites or rejects in a host. */
const hostPiece = fc.constantFrom(
  'x'.repeat(60),
  'A',
  'Z',
  '%',
  '%41',
  '%2e',
  '\\',
  '@',
  ':',
  ':8443',
  ':443',
  ' ',
  '\t',
  'é',
  'ß',
  'ｅ',
  '\u0130',
  '\u200d',
  'xn--',
  'xn--bcher-kva',
  'xn--zz',
  '0x',
  '0x7f',
  '[',
  ']',
  '*',
  '~',
  '!',
  '$',
  "'",
  '=',
  '^',
  '|',
  '<',
  '"',
  '',
  '.',
);
const label = mostlyPlain(plainLabel, hostPiece);
const lastLabel = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('com', 'io', 'co.uk', 'a1', 'x-y', 'z_') },
  { weight: 1, arbitrary: fc.constantFrom('xn--p1ai', '1', '255', '0x1f', '0x', '08', 'Com', '', '.') },
);
const host = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 4 }), lastLabel)
  .map(([labels, last]) => [...labels, last].join('.'));
const ipHost = fc.constantFrom(
  '127.0.0.1',
  '127.1',
  '0x7f.1',
  '3405803783',
  '203.0.113.7.',
  '[::1]',
  '[64:ff9b::1.2.3.4]',
);

const plainSegment = fc.string({ unit: fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=:@".split('')), maxLength: 6 });
/** Pieces the WHATWG parser rewrites in a path, or that end it. */
const pathPiece = fc.constantFrom(
  '.',
  '..',
  '/.',
  '/..',
  '%2e',
  '%2E',
  '%41',
  '%',
  '\\',
  ' ',
  '"',
  '<',
  '>',
  '^',
  '`',
  '{',
  '}',
  '|',
  '[',
  ']',
  'é',
  '\u0000',
  '\u007f',
  '\ud800',
  '?',
  '#',
  '?q=a b&x=é',
  '#frag/../x',
);
const segment = mostlyPlain(plainSegment, pathPiece);
const path = fc.array(segment, { maxLength: 4 }).map((segments) => segments.map((part) => `/${part}`).join(''));
const scheme = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('https://', 'http://') },
  { weight: 1, arbitrary: fc.constantFrom('HTTPS://', 'Http://', 'https:/', 'https:///', 'ftp://') },
);
const userinfo = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('user@', 'user:pw@', 'good.com@') },
);

const urls = fc
  .tuple(scheme, userinfo, fc.oneof({ weight: 9, arbitrary: host }, { weight: 1, arbitrary: ipHost }), path)
  .map(([s, u, h, p]) => `${s}${u}${h}${p}`);

describe('plain URL reader', () => {
  it('gives the hostname and pathname of new URL, the hostname already clean, whenever it reads a URL itself', () => {
    fc.assert(
      fc.property(urls, (text) => {
        const plain = plainUrl(text);
        if (plain === undefined) return;
        const url = new URL(text);

        expect(plain).toEqual({ hostname: url.hostname, pathname: url.pathname });
        expect(canonicalHost(plain.hostname)).toBe(plain.hostname);
      }),
      { numRuns: 20_000, seed: SEED },
    );
  });

  it('reads over a fifth of the generated URLs itself, so the property above is not vacuous', () => {
    const read = fc.sample(urls, { numRuns: 2_000, seed: SEED }).filter((text) => plainUrl(text) !== undefined);

    expect(read.length).toBeGreaterThan(400);
  });

  it.each([
    ['https://login.site-1.example-1.com/', { hostname: 'login.site-1.example-1.com', pathname: '/' }],
    ['https://shop.unlisted-7.org/articles/7', { hostname: 'shop.unlisted-7.org', pathname: '/articles/7' }],
    ['http://x.com/Handle_1?s=20#top', { hostname: 'x.com', pathname: '/Handle_1' }],
    ['https://acme.com', { hostname: 'acme.com', pathname: '/' }],
  ])('reads %s itself', (text, expected) => {
    expect(plainUrl(text)).toEqual(expected);
  });

  it.each([
    'https://Acme.com/',
    'https://acme.com./',
    'https://a..b.com/',
    'https://acme.com:8443/',
    'https://user@acme.com/',
    'https://xn--bcher-kva.de/',
    'https://203.0.113.7/',
    'https://acme.123/',
    `https://${'a'.repeat(64)}.com/`,
    'https://acme.com/a/../b',
    'https://acme.com/a%2fb',
    'https://acme.com\\path',
  ])('leaves %s to the WHATWG parser', (text) => {
    expect(plainUrl(text)).toBeUndefined();
  });
});
