import { domainToASCII } from 'node:url';
import { publicSuffixLength } from '../check/index.ts';
import { PERMUTATION_FAMILIES, type PermutationFamily } from './sources.ts';

export type Permutation = { domain: string; family: PermutationFamily };

const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const VOWELS = 'aeiou';
/** Neighbours on a QWERTY keyboard: the replacement and insertion families (dnstwist's). */
export const KEYBOARD: Record<string, string> = {
  '1': '2q',
  '2': '3wq1',
  '3': '4ew2',
  '4': '5re3',
  '5': '6tr4',
  '6': '7yt5',
  '7': '8uy6',
  '8': '9iu7',
  '9': '0oi8',
  '0': 'po9',
  q: '12wa',
  w: '3esaq2',
  e: '4rdsw3',
  r: '5tfde4',
  t: '6ygfr5',
  y: '7uhgt6',
  u: '8ijhy7',
  i: '9okju8',
  o: '0plki9',
  p: 'lo0',
  a: 'qwsz',
  s: 'edxzaw',
  d: 'rfcxse',
  f: 'tgvcdr',
  g: 'yhbvft',
  h: 'ujnbgy',
  j: 'ikmnhu',
  k: 'olmji',
  l: 'kop',
  z: 'asx',
  x: 'zsdc',
  c: 'xdfv',
  v: 'cfgb',
  b: 'vghn',
  n: 'bhjm',
  m: 'njk',
};
/** Latin letters and their lookalikes (ASCII and Unicode) that registries accept in IDNs. */
const GLYPHS: Record<string, string[]> = {
  a: ['à', 'á', 'â', 'ã', 'ä', 'å', 'ɑ', 'а'],
  b: ['d', 'lb', 'ḃ', 'ь'],
  c: ['e', 'ç', 'ć', 'с'],
  d: ['b', 'cl', 'dl', 'ď'],
  e: ['c', 'é', 'è', 'ê', 'ë', 'е'],
  g: ['q', 'ğ', 'ġ', 'ɡ'],
  h: ['lh', 'ĥ', 'һ'],
  i: ['1', 'l', 'í', 'ì', 'ï', 'і'],
  k: ['lk', 'ik', 'lc', 'κ'],
  l: ['1', 'i', 'ĺ', 'ł'],
  m: ['n', 'nn', 'rn', 'rr'],
  n: ['m', 'r', 'ń', 'ñ'],
  o: ['0', 'ò', 'ó', 'ô', 'õ', 'ö', 'ο', 'о'],
  p: ['ρ', 'р'],
  q: ['g', 'ԛ'],
  r: ['ŕ', 'ř', 'г'],
  s: ['ś', 'š', 'ѕ'],
  t: ['ţ', 'ť', 'τ'],
  u: ['ú', 'ù', 'û', 'ü', 'υ'],
  v: ['ν', 'ѵ'],
  w: ['vv', 'ŵ', 'ѡ'],
  x: ['х', 'ҳ'],
  y: ['ý', 'ÿ', 'у'],
  z: ['ź', 'ż', 'ž'],
};
export const DEFAULT_TLDS = ['com', 'net', 'org', 'io', 'co', 'app', 'xyz', 'info', 'online', 'site', 'dev', 'finance'];
const SUBDOMAIN_MIN = 2;

/**
 * Every name made by swapping one letter for a lookalike throughout a window of the name (so
 * `aaa` gives `àaa`, `ààa` and `ààà`), windows of every length short of the whole name: dnstwist's
 * first homoglyph pass.
 */
const glyphSwaps = (name: string): string[] => {
  const out = new Set<string>();
  for (let width = 1; width < name.length; width++) {
    for (let start = 0; start + width <= name.length; start++) {
      const window = name.slice(start, start + width);
      for (const letter of new Set(window)) {
        for (const glyph of GLYPHS[letter] ?? []) {
          out.add(name.slice(0, start) + window.replaceAll(letter, glyph) + name.slice(start + width));
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

const families = {
  addition: (name) => [...LETTERS].map((char) => name + char),
  bitsquatting: (name) => {
    const out: string[] = [];
    for (let i = 0; i < name.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const flipped = String.fromCharCode(name.charCodeAt(i) ^ (1 << bit));
        if (/^[a-z0-9-]$/.test(flipped)) out.push(name.slice(0, i) + flipped + name.slice(i + 1));
      }
    }
    return out;
  },
  homoglyph: (name) => glyphSwaps(name),
  hyphenation: (name) =>
    [...Array(Math.max(0, name.length - 1)).keys()].map((i) => `${name.slice(0, i + 1)}-${name.slice(i + 1)}`),
  insertion: (name) => {
    const out: string[] = [];
    for (let i = 1; i < name.length - 1; i++) {
      for (const key of KEYBOARD[name[i] as string] ?? '') {
        out.push(name.slice(0, i) + key + name.slice(i), name.slice(0, i + 1) + key + name.slice(i + 1));
      }
    }
    return out;
  },
  omission: (name) => [...name].map((_, i) => name.slice(0, i) + name.slice(i + 1)),
  repetition: (name) => [...name].map((char, i) => name.slice(0, i) + char + name.slice(i)),
  replacement: (name) => {
    const out: string[] = [];
    for (let i = 0; i < name.length; i++) {
      for (const key of KEYBOARD[name[i] as string] ?? '') out.push(name.slice(0, i) + key + name.slice(i + 1));
    }
    return out;
  },
  subdomain: (name) =>
    [...Array(Math.max(0, name.length - 1)).keys()]
      .filter((i) => i + 1 >= SUBDOMAIN_MIN - 1 && name[i] !== '-' && name[i + 1] !== '-')
      .map((i) => `${name.slice(0, i + 1)}.${name.slice(i + 1)}`),
  transposition: (name) =>
    [...Array(Math.max(0, name.length - 1)).keys()]
      .filter((i) => name[i] !== name[i + 1])
      .map((i) => name.slice(0, i) + (name[i + 1] as string) + (name[i] as string) + name.slice(i + 2)),
  'vowel-swap': (name) => {
    const out: string[] = [];
    for (let i = 0; i < name.length; i++) {
      if (!VOWELS.includes(name[i] as string)) continue;
      for (const vowel of VOWELS) if (vowel !== name[i]) out.push(name.slice(0, i) + vowel + name.slice(i + 1));
    }
    return out;
  },
} satisfies Record<Exclude<PermutationFamily, 'tld-swap'>, (name: string) => string[]>;

/** A valid host in ASCII (IDNs as punycode), or undefined for a label DNS cannot hold. */
const toHost = (name: string, suffix: string): string | undefined => {
  const ascii = domainToASCII(`${name}.${suffix}`);
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
  domain: string,
  options: { families?: readonly PermutationFamily[]; tlds?: readonly string[]; max?: number } = {},
): Permutation[] => {
  const lower = domain.toLowerCase();
  const suffixLength = publicSuffixLength(lower, true);
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
    if (family === 'tld-swap') {
      for (const tld of options.tlds ?? DEFAULT_TLDS) if (tld !== suffix) add(toHost(name, tld), family);
      continue;
    }
    for (const variant of families[family](name)) add(toHost(variant, suffix), family);
  }
  // Last, so that a `max` cuts these many two-lookalike names before any simpler typo.
  if (wanted.has('homoglyph') && out.length < max) {
    for (const variant of doubleGlyphSwaps(name)) add(toHost(variant, suffix), 'homoglyph');
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
