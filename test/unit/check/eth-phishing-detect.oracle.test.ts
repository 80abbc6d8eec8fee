import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { canonicalHost } from '../../../shared/domain/check/canonical.ts';
import {
  type EthPhishingConfig,
  ethListsOf,
  ethPhishingSource,
} from '../../../shared/domain/check/eth-phishing-detect.ts';
import { type CheckStatus, type KeyTarget, LEVEL } from '../../../shared/domain/check/types.ts';

const require = createRequire(import.meta.url);
type LibraryDetector = { check(domain: string): { result: boolean; type: string } };
const PhishingDetector = require('eth-phishing-detect/src/detector') as new (config: unknown) => LibraryDetector;
const shipped = require('eth-phishing-detect/src/config.json') as Required<
  Pick<EthPhishingConfig, 'whitelist' | 'blacklist' | 'fuzzylist' | 'tolerance'>
>;

/** The library's answer as a check status: whitelist → ALLOWED, blacklist or fuzzy → BLOCKED. */
const libraryStatus = (detector: LibraryDetector, host: string): CheckStatus => {
  const { result, type } = detector.check(host);
  if (type === 'whitelist') return 'ALLOWED';
  return result ? 'BLOCKED' : 'UNKNOWN';
};

/** mulberry32, so the generated hostnames are the same on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789-';

/** Hostnames of every kind, derived deterministically from the shipped lists. */
const generateHosts = (): { kind: string; host: string }[] => {
  const next = seeded(20_240_101);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const letter = () => LETTERS[Math.floor(next() * (LETTERS.length - 1))] as string;
  const mutate = (text: string, edits: number): string => {
    let out = text;
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(next() * (out.length + 1));
      const op = Math.floor(next() * 4);
      if (op === 0) out = out.slice(0, at) + letter() + out.slice(at + 1);
      else if (op === 1) out = out.slice(0, at) + out.slice(at + 1);
      else if (op === 2) out = out.slice(0, at) + letter() + out.slice(at);
      else if (at + 1 < out.length) out = out.slice(0, at) + (out[at + 1] ?? '') + (out[at] ?? '') + out.slice(at + 2);
    }
    return out;
  };
  const hosts: { kind: string; host: string }[] = [];
  const add = (kind: string, host: string) => {
    const clean = host.replace(/^[.-]+|[.-]+$/g, '').replace(/\.\.+/g, '.');
    if (clean !== '' && canonicalHost(clean) === clean) hosts.push({ kind, host: clean });
  };
  for (const [i, domain] of shipped.blacklist.entries()) if (i % 4 === 0) add('blocklisted', domain);
  for (const domain of shipped.whitelist) add('allowlisted', domain);
  for (let i = 0; i < 1500; i++)
    add('blocklisted subdomain', `${pick(['www', 'login', 'app', 'a.b'])}.${pick(shipped.blacklist)}`);
  for (let i = 0; i < 1000; i++)
    add('allowlisted subdomain', `${pick(['www', 'wallet', 'x.y'])}.${pick(shipped.whitelist)}`);
  for (const target of shipped.fuzzylist) {
    const [name, ...rest] = target.split('.');
    for (let i = 0; i < 200; i++) {
      const tld = next() < 0.5 ? rest.join('.') : pick(['com', 'io', 'xyz', 'org', 'app', 'co.uk']);
      const prefix = next() < 0.2 ? pick(['www.', 'awww.', 'secure-', 'app.']) : '';
      add('look-alike', `${prefix}${mutate(name ?? '', 1 + Math.floor(next() * 3))}.${tld}`);
    }
  }
  for (let i = 0; i < 1500; i++) {
    const domain = pick([...shipped.blacklist, ...shipped.whitelist]);
    const dot = domain.indexOf('.');
    add('parent or sibling', next() < 0.5 && dot > 0 ? domain.slice(dot + 1) : mutate(domain, 2));
  }
  for (let i = 0; i < 2500; i++) {
    const length = 4 + Math.floor(next() * 14);
    const label = Array.from({ length }, letter).join('');
    add('unknown', `${label}.${pick(['com', 'net', 'xyz', 'io', 'finance', 'app', 'com12786312634', 'github.io'])}`);
  }
  return hosts;
};

describe('eth-phishing-detect source against the library (oracle)', () => {
  const hosts = generateHosts();
  const detector = new PhishingDetector(shipped);
  const source = ethPhishingSource(ethListsOf(shipped));
  const target = (host: string): KeyTarget => ({ kind: 'keys', keys: [host], levels: [LEVEL.host], domain: host });

  it('covers at least 10,000 hostnames of every kind', () => {
    const kinds = new Set(hosts.map((h) => h.kind));

    expect(hosts.length).toBeGreaterThanOrEqual(10_000);
    expect([...kinds].sort()).toEqual([
      'allowlisted',
      'allowlisted subdomain',
      'blocklisted',
      'blocklisted subdomain',
      'look-alike',
      'parent or sibling',
      'unknown',
    ]);
  });

  it('gives the library’s verdict on every generated hostname', () => {
    const mismatches = hosts.flatMap(({ kind, host }) => {
      const expected = libraryStatus(detector, host);
      const actual = source.check(target(host));
      return actual && 'status' in actual && actual.status === expected ? [] : [{ kind, host, expected, actual }];
    });

    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it('meets every verdict of the library on the generated hostnames', () => {
    const verdicts = new Set(hosts.map(({ host }) => detector.check(host).type));

    expect([...verdicts].sort()).toEqual(['all', 'blacklist', 'fuzzy', 'whitelist']);
  });
});
