import { execFileSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Permutation, permutations } from '../../shared/domain/detections/dnstwist.ts';

/**
 * dnstwist itself (Debian's 20221213) is the oracle: every name `dnstwist -f list <domain>` lists,
 * plain ASCII and punycode alike, is one DNS_TWIST makes. `-f list` prints the permutations and
 * stops before any DNS query (no `-r`), so the test needs no network.
 */
const DOMAINS = [
  'metamask.io',
  'uniswap.org',
  'chainpatrol.io',
  'acme.com',
  'coinbase.com',
  'binance.com',
  'opensea.io',
  'phantom.app',
  'ledger.com',
  'trezor.io',
  'kraken.com',
  'etherscan.io',
  'paypal.com',
  'google.com',
  'apple.com',
  'microsoft.com',
  'github.com',
  'stripe.com',
  'revolut.com',
  'wise.com',
  // A two-label suffix, digits and a hyphen in the label.
  'bbc.co.uk',
  '1inch.io',
  'crypto-com.com',
];

const MISSING = 'dnstwist is not on PATH: install it with `apt-get install -y dnstwist`';

const dnstwistPath = (): string => {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const file = join(dir, 'dnstwist');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  throw new Error(MISSING);
};

const listed = (domain: string): string[] =>
  execFileSync(dnstwistPath(), ['-f', 'list', domain], { encoding: 'utf8', maxBuffer: 64 << 20 })
    .split('\n')
    .filter((line) => line !== '' && line !== domain);

/**
 * The fuzzer dnstwist names for each of its names: its own `run(..., format='list')` (what the
 * command runs), through the interpreter the command starts with, the listing itself discarded.
 */
const FUZZERS_OF = `
import contextlib, io, json, sys
import dnstwist
out = {}
for domain in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()):
        rows = dnstwist.run(domain=domain, format='list')
    out[domain] = [[row['fuzzer'], row['domain']] for row in rows if row['fuzzer'] != '*original']
print(json.dumps(out))
`;
const fuzzersOf = (domains: readonly string[]): Record<string, [string, string][]> => {
  const script = dnstwistPath();
  const interpreter = (readFileSync(script, 'utf8').split('\n')[0] ?? '').replace(/^#!\s*/, '').split(/\s+/);
  const [command = 'python3', ...args] = interpreter;
  return JSON.parse(
    execFileSync(command, [...args, '-c', FUZZERS_OF, ...domains], { encoding: 'utf8', maxBuffer: 256 << 20 }),
  );
};

describe('DNS_TWIST against dnstwist -f list', () => {
  let fuzzers: Record<string, [string, string][]> = {};
  const ours = new Map<string, Permutation[]>();

  beforeAll(() => {
    fuzzers = fuzzersOf(DOMAINS);
  });

  it.each(DOMAINS)('makes every name dnstwist lists for %s', (domain) => {
    const theirs = listed(domain);
    const made = permutations(suffixes, domain);
    ours.set(domain, made);
    const names = new Set(made.map((permutation) => permutation.domain));

    expect(new Set(fuzzers[domain]?.map(([, name]) => name))).toEqual(new Set(theirs));
    expect(theirs.filter((name) => !names.has(name))).toEqual([]);
  });

  afterAll(() => {
    const rows = new Map<string, { theirs: number; ours: number; made: number }>();
    const row = (family: string) => {
      const found = rows.get(family) ?? { theirs: 0, ours: 0, made: 0 };
      rows.set(family, found);
      return found;
    };
    for (const [domain, made] of ours) {
      const names = new Set(made.map((permutation) => permutation.domain));
      for (const permutation of made) row(permutation.family).ours += 1;
      for (const [fuzzer, name] of fuzzers[domain] ?? []) {
        row(fuzzer).theirs += 1;
        if (names.has(name)) row(fuzzer).made += 1;
      }
    }
    const lines = [...rows]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([family, { theirs, ours: count, made }]) =>
        [
          family.padEnd(14),
          String(theirs).padStart(8),
          (family === 'cyrillic' || family === 'various' ? '-' : String(count)).padStart(8),
          String(made).padStart(8),
          theirs === 0 ? '' : ` ${((100 * made) / theirs).toFixed(1)}%`,
        ].join(''),
      );
    console.log(
      [
        `DNS_TWIST against dnstwist over ${ours.size} domains (cyrillic names counted as ours under homoglyph, various under tld-swap)`,
        `${'family'.padEnd(14)}${'dnstwist'.padStart(8)}${'ours'.padStart(8)}${'made'.padStart(8)}`,
        ...lines,
      ].join('\n'),
    );
  });
});

import { suffixes } from '../fixtures/suffixes.ts';
