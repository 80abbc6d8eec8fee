import { domainToASCII } from 'node:url';
import { type PublicSuffixes, publicSuffixLength } from '../check/index.ts';
import { CYRILLIC, GLYPHS, KEYBOARDS, QWERTY } from './dnstwist-tables.ts';
import { PERMUTATION_FAMILIES, type PermutationFamily } from './sources.ts';

export type Permutation = { domain: string; family: PermutationFamily };

const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const VOWELS = 'aeiou';
/** Neighbours on a QWERTY keyboard (the replacement and insertion families also use QWERTZ and AZERTY). */
export const KEYBOARD = QWERTY;
export const DEFAULT_TLDS = ['com', 'net', 'org', 'io', 'co', 'app', 'xyz', 'info', 'online', 'site', 'dev', 'finance'];

/** Every neighbour of a key on any of the layouts, each once. */
const neighbours = (char: string): Set<string> => new Set(KEYBOARDS.flatMap((keyboard) => [...(keyboard[char] ?? '')]));

/**
 * Every name made by swapping one character for a lookalike throughout a window of the name (so
 * `aaa` gives `àaa`, `ààa` and `ààà`), windows of every length short of the whole name: dnstwist's
 * first homoglyph pass.
 */
const glyphSwaps = (name: string): string[] => {
  const out = new Set<string>();
  for (let width = 1; width < name.length; width++) {
    for (let start = 0; start + width <= name.length; start++) {
      const window = name.slice(start, start + width);
      for (const char of new Set(window)) {
        for (const glyph of GLYPHS[char] ?? []) {
          out.add(name.slice(0, start) + window.replaceAll(char, glyph) + name.slice(start + width));
        }
      }
    }
  }
  return [...out];
};

/** dnstwist's second homoglyph pass: a swap on top of each first-pass swap (two kinds of lookalike in one name). */
const doubleGlyphSwaps = (name: string): Set<string> => {
  const out = new Set<string>();
  for (const once of glyphSwaps(name)) for (const twice of glyphSwaps(once)) out.add(twice);
  return out;
};

/**
 * The families, after dnstwist 20221213's fuzzers (`dnstwist -f list`, no dictionary and no TLD
 * file, so no `dictionary` names and only our own TLD swap; that version has no plural). Each
 * takes the label before the public suffix and the suffix, and gives whole names, Unicode allowed:
 * - addition: a letter or digit appended; bitsquatting: one bit of one character flipped, kept
 *   when it is still a letter, digit or hyphen; omission, repetition, transposition: one character
 *   dropped, doubled, or swapped with the next; hyphenation, subdomain: a hyphen or a dot between
 *   two characters; vowel-swap: one vowel for another;
 * - insertion (a neighbour key typed before or after a character other than the first and last)
 *   and replacement (a neighbour key instead of a character), on QWERTY, QWERTZ and AZERTY, digit
 *   row included;
 * - homoglyph: one lookalike swapped throughout a window, and again on top of that (the second
 *   pass is generated last); cyrillic: every letter for its Cyrillic twin, only when each has one;
 * - various: the suffix folded into the label (`metamaskio.io`, and `metamask-io.com` unless the
 *   suffix is `com`; for a two-label suffix, `exampleco.uk` and `example.uk`); tld-swap: the label
 *   under each configured TLD.
 * dnstwist's cyrillic names are reported as homoglyphs and its various ones as TLD swaps.
 */
type Fuzzer = (name: string, suffix: string) => Iterable<string>;
const under =
  (transform: (name: string) => Iterable<string>): Fuzzer =>
  (name, suffix) =>
    [...transform(name)].map((variant) => `${variant}.${suffix}`);

const FUZZERS: readonly { family: PermutationFamily; fuzz: Fuzzer }[] = [
  { family: 'addition', fuzz: under((name) => [...LETTERS].map((char) => name + char)) },
  {
    family: 'bitsquatting',
    fuzz: under((name) => {
      const out: string[] = [];
      for (let i = 0; i < name.length; i++) {
        for (let bit = 0; bit < 8; bit++) {
          const flipped = String.fromCharCode(name.charCodeAt(i) ^ (1 << bit));
          if (/^[a-z0-9-]$/.test(flipped)) out.push(name.slice(0, i) + flipped + name.slice(i + 1));
        }
      }
      return out;
    }),
  },
  { family: 'homoglyph', fuzz: under(glyphSwaps) },
  {
    family: 'homoglyph',
    fuzz: under((name) => {
      const twin = [...name].map((char) => CYRILLIC[char]);
      return twin.every((char) => char !== undefined) ? [twin.join('')] : [];
    }),
  },
  {
    family: 'hyphenation',
    fuzz: under((name) =>
      [...Array(Math.max(0, name.length - 1)).keys()].map((i) => `${name.slice(0, i + 1)}-${name.slice(i + 1)}`),
    ),
  },
  {
    family: 'insertion',
    fuzz: under((name) => {
      const out: string[] = [];
      for (let i = 1; i < name.length - 1; i++) {
        for (const key of neighbours(name[i] as string)) {
          out.push(name.slice(0, i) + key + name.slice(i), name.slice(0, i + 1) + key + name.slice(i + 1));
        }
      }
      return out;
    }),
  },
  { family: 'omission', fuzz: under((name) => [...name].map((_, i) => name.slice(0, i) + name.slice(i + 1))) },
  {
    family: 'repetition',
    fuzz: under((name) => [...name].map((char, i) => name.slice(0, i) + char + name.slice(i))),
  },
  {
    family: 'replacement',
    fuzz: under((name) => {
      const out: string[] = [];
      for (let i = 0; i < name.length; i++) {
        for (const key of neighbours(name[i] as string)) out.push(name.slice(0, i) + key + name.slice(i + 1));
      }
      return out;
    }),
  },
  {
    family: 'subdomain',
    fuzz: under((name) =>
      [...Array(Math.max(0, name.length - 1)).keys()]
        .filter((i) => name[i] !== '-' && name[i + 1] !== '-')
        .map((i) => `${name.slice(0, i + 1)}.${name.slice(i + 1)}`),
    ),
  },
  {
    family: 'transposition',
    fuzz: under((name) =>
      [...Array(Math.max(0, name.length - 1)).keys()]
        .filter((i) => name[i] !== name[i + 1])
        .map((i) => name.slice(0, i) + (name[i + 1] as string) + (name[i] as string) + name.slice(i + 2)),
    ),
  },
  {
    family: 'vowel-swap',
    fuzz: under((name) => {
      const out: string[] = [];
      for (let i = 0; i < name.length; i++) {
        if (!VOWELS.includes(name[i] as string)) continue;
        for (const vowel of VOWELS) if (vowel !== name[i]) out.push(name.slice(0, i) + vowel + name.slice(i + 1));
      }
      return out;
    }),
  },
  {
    family: 'tld-swap',
    fuzz: (name, suffix) => {
      const last = suffix.slice(suffix.lastIndexOf('.') + 1);
      if (last !== suffix) return [`${name}.${last}`, `${name}${suffix}`];
      return [`${name}${suffix}.${suffix}`, ...(suffix === 'com' ? [] : [`${name}-${suffix}.com`])];
    },
  },
];

/** A valid host in ASCII (IDNs as punycode), or undefined for a label DNS cannot hold. */
const toHost = (name: string): string | undefined => {
  const ascii = domainToASCII(name);
  if (ascii === '' || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  return labels.every(
    (label) => label.length >= 1 && label.length <= 63 && !label.startsWith('-') && !label.endsWith('-'),
  )
    ? ascii
    : undefined;
};

/**
 * The dnstwist permutations of one domain (its label before the public suffix is permuted, the
 * suffix kept, except by the TLD swap), each once, never the domain itself, in family order.
 */
export const permutations = (
  suffixes: PublicSuffixes,
  domain: string,
  options: { families?: readonly PermutationFamily[]; tlds?: readonly string[]; max?: number } = {},
): Permutation[] => {
  const lower = domain.toLowerCase();
  const suffixLength = publicSuffixLength(suffixes, lower, true);
  const suffix = lower.slice(lower.length - suffixLength);
  const name = lower.slice(0, Math.max(0, lower.length - suffixLength - 1));
  if (name === '' || suffix === '') return [];
  const wanted = new Set(options.families ?? PERMUTATION_FAMILIES);
  const seen = new Set<string>([lower]);
  const out: Permutation[] = [];
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const add = (candidate: string | undefined, family: PermutationFamily) => {
    if (candidate === undefined || seen.has(candidate) || out.length >= max) return;
    seen.add(candidate);
    out.push({ domain: candidate, family });
  };
  for (const family of PERMUTATION_FAMILIES) {
    if (!wanted.has(family)) continue;
    for (const fuzzer of FUZZERS) {
      if (fuzzer.family === family) for (const variant of fuzzer.fuzz(name, suffix)) add(toHost(variant), family);
    }
    if (family === 'tld-swap') {
      for (const tld of options.tlds ?? DEFAULT_TLDS) if (tld !== suffix) add(toHost(`${name}.${tld}`), family);
    }
  }
  // Last, so that a `max` cuts these many two-lookalike names before any simpler typo.
  if (wanted.has('homoglyph') && out.length < max) {
    for (const variant of doubleGlyphSwaps(name)) add(toHost(`${variant}.${suffix}`), 'homoglyph');
  }
  return out;
};

/** Resolves names: real DNS in AWS, a fixture locally. */
export interface Resolver {
  /** Whether the name is registered (has an address or a name server). */
  registered(domain: string): Promise<boolean>;
}

/** Runs `resolve` over `items` with at most `limit` in flight. */
export const mapBounded = async <T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};
