import { distance } from 'fastest-levenshtein';
import { canonicalHost } from './canonical.ts';
import { KeyTable, recentHashOf } from './key-table.ts';
import type { ExternalSource, KeyTarget, SourceVerdict } from './types.ts';

/** The library's configuration: the legacy shape (shipped in the npm package) or the current one. */
export type EthPhishingConfig = {
  version?: number | string;
  tolerance?: number;
  fuzzylist?: readonly string[];
  whitelist?: readonly string[];
  blacklist?: readonly string[];
  allowlist?: readonly string[];
  blocklist?: readonly string[];
};

/** The library's lists after our host canonicalization (lower case, punycode, no trailing dot). */
export type EthPhishingLists = {
  allow: readonly string[];
  block: readonly string[];
  fuzzy: readonly string[];
  tolerance: number;
};

const DEFAULT_TOLERANCE = 3;

const hostsOf = (entries: readonly string[] | undefined): string[] =>
  (entries ?? []).flatMap((entry) => canonicalHost(entry) ?? []);

export const ethListsOf = (config: EthPhishingConfig): EthPhishingLists => ({
  allow: hostsOf(config.allowlist ?? config.whitelist),
  block: hostsOf(config.blocklist ?? config.blacklist),
  fuzzy: hostsOf(config.fuzzylist),
  tolerance: config.tolerance ?? DEFAULT_TOLERANCE,
});

/** The library's fuzzy form: the domain without its last label. */
const fuzzyForm = (domain: string): string => {
  const dot = domain.lastIndexOf('.');
  return dot < 0 ? '' : domain.slice(0, dot);
};

const UNKNOWN: SourceVerdict = Object.freeze({ status: 'UNKNOWN' });

const ASCII = 128;

/** Each character of an ASCII form with its count, flattened (`code, count, code, count, …`); undefined otherwise. */
const bagOf = (form: string): number[] | undefined => {
  const counts = new Map<number, number>();
  for (let i = 0; i < form.length; i++) {
    const code = form.charCodeAt(i);
    if (code >= ASCII) return undefined;
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  return [...counts].flat();
};

/**
 * A lower bound of the edit distance between a target form (its `bag`, `length` characters) and
 * the form counted in `formCounts`: an edit adds, removes or replaces one character, so it takes
 * at most one character off what either form has and the other lacks.
 */
const bagDistance = (bag: readonly number[], length: number, formCounts: Int32Array, formLength: number): number => {
  let shared = 0;
  for (let i = 0; i < bag.length; i += 2)
    shared += Math.min(bag[i + 1] as number, formCounts[bag[i] as number] as number);
  return Math.max(length - shared, formLength - shared);
};

const LISTED = { allow: 1, block: 2 } as const;

/** Both lists in one table, so each suffix of a checked domain costs one lookup. */
const listedOf = (lists: EthPhishingLists): KeyTable => {
  const listed = new KeyTable(lists.allow.length + lists.block.length);
  for (const domain of lists.allow) listed.flag(domain, LISTED.allow);
  for (const domain of lists.block) listed.flag(domain, LISTED.block);
  return listed;
};

/**
 * eth-phishing-detect's verdicts with the library's semantics (a listed domain covers its
 * subdomains; the allowlist wins over the blocklist; a domain within `tolerance` edits of a
 * fuzzylist entry, TLD dropped and the first `www.` removed, is a look-alike and blocked), but
 * answered with hash lookups of the domain's suffixes instead of the library's linear scan.
 */
export const ethPhishingSource = (lists: EthPhishingLists, { budgetMs = 50 } = {}): ExternalSource => {
  const listed = listedOf(lists);
  const { tolerance } = lists;
  const targets = lists.fuzzy.map((domain) => {
    const form = fuzzyForm(domain);
    return { domain, form, bag: bagOf(form) };
  });
  // No form shorter or longer than these by more than the tolerance is within it of any target.
  const shortest = Math.min(...targets.map(({ form }) => form.length)) - tolerance;
  const longest = Math.max(...targets.map(({ form }) => form.length)) + tolerance;
  /** The counts of one form's characters, by code unit: filled for one look-alike search at a time. */
  const formCounts = new Int32Array(ASCII);

  const lookalike = (domain: string): string | undefined => {
    if (tolerance <= 0) return undefined;
    let form = fuzzyForm(domain);
    const www = form.indexOf('www.');
    if (www >= 0) form = form.slice(0, www) + form.slice(www + 4);
    if (form.length < shortest || form.length > longest) return undefined;
    let counted = 0;
    while (counted < form.length && form.charCodeAt(counted) < ASCII) {
      const code = form.charCodeAt(counted++);
      formCounts[code] = (formCounts[code] as number) + 1;
    }
    const ascii = counted === form.length;
    let like: string | undefined;
    for (const target of targets) {
      const gap = target.form.length - form.length;
      if (gap > tolerance || -gap > tolerance) continue;
      // The bound is cheaper than the distance and rules out most targets.
      if (ascii && target.bag && bagDistance(target.bag, target.form.length, formCounts, form.length) > tolerance)
        continue;
      if (distance(form, target.form) <= tolerance) {
        like = target.domain;
        break;
      }
    }
    for (let i = 0; i < counted; i++) {
      const code = form.charCodeAt(i);
      formCounts[code] = (formCounts[code] as number) - 1;
    }
    return like;
  };

  const verdictOf = (domain: string): SourceVerdict => {
    let blocked: string | undefined;
    for (let suffix = domain, dot = -1; ; suffix = domain.slice(dot + 1)) {
      const flags = listed.get(suffix, recentHashOf(suffix));
      if (flags !== undefined) {
        if (flags & LISTED.allow)
          return { status: 'ALLOWED', key: suffix, message: `eth-phishing-detect allowlists ${suffix}` };
        if (blocked === undefined) blocked = suffix;
      }
      dot = domain.indexOf('.', dot + 1);
      if (dot < 0) break;
    }
    if (blocked !== undefined) {
      return { status: 'BLOCKED', key: blocked, message: `eth-phishing-detect blocklists ${blocked}` };
    }
    const like = lookalike(domain);
    return like === undefined
      ? UNKNOWN
      : { status: 'BLOCKED', key: like, message: `Looks like ${like} (eth-phishing-detect fuzzy match)` };
  };

  return {
    name: 'eth-phishing-detect',
    budgetMs,
    check: (target: KeyTarget) => (target.domain === undefined ? undefined : verdictOf(target.domain)),
  };
};
