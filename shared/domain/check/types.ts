export type CheckStatus = 'UNKNOWN' | 'ALLOWED' | 'BLOCKED';

/** The published order of the check's sources; `sources` in a result always follows it. */
export const SOURCE_ORDER = ['service', 'eth-phishing-detect', 'vendor', 'seal', 'polkadot-phishing'] as const;
export type SourceName = (typeof SOURCE_ORDER)[number];
export type ExternalSourceName = Exclude<SourceName, 'service'>;
export const EXTERNAL_SOURCES: readonly ExternalSourceName[] = [
  'eth-phishing-detect',
  'vendor',
  'seal',
  'polkadot-phishing',
];

/** Why a verdict is what it is, when its source alone does not say. */
export const CHECK_REASONS = [
  'not-found',
  'unsupported-type',
  'source-error',
  'parent-domain',
  'hosting-domain',
  'timeout',
  'external-source',
] as const;
type CheckReason = (typeof CHECK_REASONS)[number];
/** What kept the check from a full answer. */
export const CHECK_CODES = ['parse-error', 'internal-scheme', 'internal-error'] as const;
type CheckCode = (typeof CHECK_CODES)[number];

/** One consulted source; `reason` says why a source that could not answer reports UNKNOWN. */
export type SourceReport = { source: SourceName; status: CheckStatus; reason?: 'timeout' | 'source-error' };

export type CheckResult = {
  status: CheckStatus;
  source: SourceName;
  sources: SourceReport[];
  reason?: CheckReason;
  code?: CheckCode;
  message?: string;
  watchStatus?: 'ENABLED' | 'DISABLED';
};

/** How specific a candidate key is; a smaller level is more specific and decides first. */
export const LEVEL = { exact: 0, page: 1, host: 2, parent: 3 } as const;
export type KeyLevel = (typeof LEVEL)[keyof typeof LEVEL];

/**
 * Checked content after canonicalization. `keys` are the candidate keys, most specific first,
 * `levels[i]` the level of `keys[i]`. `domain` is the host as a browser sees it (lower case,
 * punycode, no trailing dot, `www.` kept), for sources that judge whole domains; it is absent
 * when the host alone cannot decide (a page on a path-hosting platform, an address, an email).
 */
export type CheckTarget =
  | { kind: 'keys'; keys: string[]; levels: KeyLevel[]; domain: string | undefined }
  | { kind: 'hosting-domain'; host: string }
  | { kind: 'private-address' | 'unsupported-type' | 'parse-error' | 'internal-scheme' };

export type KeyTarget = Extract<CheckTarget, { kind: 'keys' }>;

/** What one source says about a target; `key` is the candidate key (or domain) that matched. */
export type SourceVerdict = { status: CheckStatus; key?: string; level?: KeyLevel; message?: string };

/**
 * An external source. In-memory sources answer synchronously; live ones return a promise,
 * which the checker bounds by `budgetMs`. `undefined` means the source does not judge this
 * kind of target and is not consulted.
 */
export interface ExternalSource {
  readonly name: ExternalSourceName;
  readonly budgetMs: number;
  check(target: KeyTarget): SourceVerdict | Promise<SourceVerdict> | undefined;
}

/** The service's own counts at one check-index key (approved threats, watchlisted ones, allowlisting assets). */
export type IndexEntry = { allow: number; block: number; watch: number };

/**
 * The check index: one answer per key, in the order asked, `undefined` for keys without an
 * entry. A cache may answer synchronously.
 */
export interface CheckIndexStore {
  lookup(keys: readonly string[]): Promise<readonly (IndexEntry | undefined)[]> | readonly (IndexEntry | undefined)[];
  /** True while the answers may be out of date (a replica that could not sync for a while). */
  stale?(): boolean;
}
