import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { getPublicSuffix } from 'tldts';
import { describe, expect, it } from 'vitest';
import { PUBLIC_SUFFIXES_FILE, packPublicSuffixes, trie } from '../../../infra/local/public-suffixes.ts';
import { publicSuffixLength } from '../../../shared/domain/check/public-suffix.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const tldtsLength = (host: string, allowPrivateDomains: boolean) =>
  getPublicSuffix(host, {
    allowPrivateDomains,
    extractHostname: false,
    validateHostname: false,
    detectIp: false,
    mixedInputs: false,
  })?.length ?? 0;

/** Every rule and exception of tldts's own tables, as dotted paths (`*.ck`, `www.ck`), read independently of the packing. */
const tldtsPaths = (): string[] => {
  const labels: string[] = [];
  for (let edge = 0, offset = 0; edge < trie.edgeLength.length; edge++) {
    const length = trie.edgeLength[edge] ?? 0;
    labels.push(trie.labelText.slice(offset, offset + length));
    offset += length;
  }
  const paths: string[] = [];
  const walk = (node: number, path: string) => {
    for (let edge = trie.edgeStart[node] ?? 0; edge < (trie.edgeStart[node + 1] ?? 0); edge++) {
      const child = `${labels[edge]}${path ? `.${path}` : ''}`;
      paths.push(child);
      walk(trie.edgeChild[edge] ?? 0, child);
    }
  };
  walk(trie.rulesRoot, '');
  walk(trie.exceptionsRoot, '');
  return paths;
};

const answersOf = (hosts: string[], allowPrivateDomains: boolean) =>
  hosts.map((host) => [host, publicSuffixLength(suffixes, host, allowPrivateDomains)]);
const expectedOf = (hosts: string[], allowPrivateDomains: boolean) =>
  hosts.map((host) => [host, tldtsLength(host, allowPrivateDomains)]);

describe('the public suffix list the check reads', () => {
  it('equals a fresh packing of the installed tldts (run npm run public-suffixes after updating it)', () => {
    expect(readFileSync(PUBLIC_SUFFIXES_FILE, 'utf8')).toBe(packPublicSuffixes());
  });

  it('gives the suffix length tldts gives for every rule and exception, bare and under one and two labels', () => {
    const hosts = tldtsPaths().flatMap((path) => {
      const host = path.replaceAll('*', 'w');
      return [host, `x.${host}`, `a.b.${host}`];
    });

    expect(hosts.length).toBeGreaterThan(30_000);
    for (const allowPrivateDomains of [true, false]) {
      expect(answersOf(hosts, allowPrivateDomains)).toEqual(expectedOf(hosts, allowPrivateDomains));
    }
  });

  it('gives the suffix length tldts gives for edge cases: trailing dots, empty labels under wildcards, no rule', () => {
    const hosts = ['', '.', '..', 'com', 'a.com', 'a.com.', 'a.com..', 'a..com', '.com', 'a.de', 'de', 'x.y'];
    const more = ['www.ck', 'a.www.ck', '.ck', 'a..ck', 'city.kawasaki.jp', '.kawasaki.jp', 'x.github.io', 'github.io'];

    for (const allowPrivateDomains of [true, false]) {
      expect(answersOf([...hosts, ...more], allowPrivateDomains)).toEqual(
        expectedOf([...hosts, ...more], allowPrivateDomains),
      );
    }
  });

  it('gives the suffix length tldts gives for random hosts built from listed and unlisted labels', () => {
    const listed = [...new Set(tldtsPaths().flatMap((path) => path.split('.')))];
    const label = fc.oneof(
      fc.constantFrom(...listed),
      fc.constantFrom('', '*', 'www', 'a', 'xn--p1ai', 'com', 'uk', 'co'),
      fc.stringMatching(/^[a-z0-9-]{1,8}$/),
    );
    const host = fc.array(label, { minLength: 1, maxLength: 6 }).map((labels) => labels.join('.'));

    fc.assert(
      fc.property(host, fc.boolean(), (name, allowPrivateDomains) => {
        expect(publicSuffixLength(suffixes, name, allowPrivateDomains)).toBe(tldtsLength(name, allowPrivateDomains));
      }),
      { numRuns: 20_000 },
    );
  });
});
