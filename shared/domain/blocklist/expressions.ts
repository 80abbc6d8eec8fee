import { hash } from 'node:crypto';
import { canonicalize, type KeyLevel, type KeyTarget, LEVEL, type PublicSuffixes } from '../check/index.ts';

/**
 * The hash-prefix blocklist's expressions, algorithm version 1. A client computes the expressions
 * of what it visits and the service those of its BLOCKED entries with these same functions, so a
 * client matches exactly the entries the check itself consults for that content.
 *
 * An expression is a check key written as Safe Browsing writes host and path: a host (the exact
 * one or a parent) with `/` (`b.example/`), a host with its exact path (`a.b.example/1/2.html`),
 * a host with a path prefix and its trailing slash (`a.b.example/1/`). The candidates are those of
 * the check: the exact host (`www.` removed) with the exact path and its first one and two segments
 * as prefixes, then the host, then up to four parents never across a public suffix or a hosting
 * platform's domain. The query never decides a verdict, so no expression carries it. Content that
 * is not a URL (addresses, handles, emails) is its canonical key as is.
 */
export const ALGO_VERSION = 1;

/** A host key: a domain name of two or more labels, an IPv4 address or a bracketed IPv6 address. */
const HOST_KEY = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)+|\[[0-9a-f:.]+\])$/;

/** The expression of a candidate key at the level the check consults it. */
const expressionAt = (key: string, level: KeyLevel): string => {
  if (HOST_KEY.test(key)) return `${key}/`;
  return level === LEVEL.page && key.includes('/') ? `${key}/` : key;
};

/** The expressions of checked content, most specific first (none for content the check does not look up). */
export const expressionsOf = (suffixes: PublicSuffixes, content: string): string[] => {
  const target = canonicalize(suffixes, content);
  if (target.kind !== 'keys') return [];
  return target.keys.map((key, i) => expressionAt(key, target.levels[i] as KeyLevel));
};

/**
 * The expressions a stored entry (a check-index key) blocks: a host with `/`; a path both exact and
 * as a prefix, since the check consults the same key for the page itself and the pages under it.
 */
export const entryExpressions = (key: string): string[] => {
  if (HOST_KEY.test(key)) return [`${key}/`];
  return key.includes('/') ? [key, `${key}/`] : [key];
};

/** SHA-256 of the expression's UTF-8 bytes, as 64 lower-case hex digits (Node makes hex faster than a buffer). */
export const fullHash = (expression: string): string => hash('sha256', expression, 'hex');

/** The first four bytes of a full hash (hex) as an unsigned 32-bit integer (big-endian). */
export const prefixOf = (hash: string): number => Number.parseInt(hash.slice(0, 8), 16);

/** A prefix as the API writes it: 8 lower-case hex digits. */
export const prefixHex = (prefix: number): string => prefix.toString(16).padStart(8, '0');

export const PREFIX_PATTERN = /^[0-9a-f]{8}$/;

/**
 * What a client looks up for content: the expressions of its check keys (most specific first), as
 * `expressionsOf`, and, where the check judges the whole domain (eth-phishing-detect, whose listed
 * domains cover their subdomains), the expressions of every suffix of that domain (`www.` kept,
 * down to the last label), `target` for the look-alike rule.
 */
export type LookupExpressions = { keys: string[]; domains: string[]; target: KeyTarget | undefined };

export const lookupExpressionsOf = (suffixes: PublicSuffixes, content: string): LookupExpressions => {
  const target = canonicalize(suffixes, content);
  if (target.kind !== 'keys') return { keys: [], domains: [], target: undefined };
  const keys = target.keys.map((key, i) => expressionAt(key, target.levels[i] as KeyLevel));
  return { keys, domains: target.domain === undefined ? [] : domainExpressions(target.domain), target };
};

/** The expressions of a domain's suffixes, the domain first, as eth-phishing-detect walks them. */
export const domainExpressions = (domain: string): string[] => {
  const out = [`${domain}/`];
  for (let dot = domain.indexOf('.'); dot >= 0; dot = domain.indexOf('.', dot + 1))
    out.push(`${domain.slice(dot + 1)}/`);
  return out;
};
