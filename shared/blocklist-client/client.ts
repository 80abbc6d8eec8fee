import { decodeArtifact, holds, type Lookalikes } from '../domain/blocklist/artifact.ts';
import { fullHash, lookupExpressionsOf, prefixHex, prefixOf } from '../domain/blocklist/expressions.ts';
import type { Verdicts } from '../domain/blocklist/list-index.ts';
import {
  EXTERNAL_SOURCES,
  type ExternalSource,
  ethPhishingSource,
  type PublicSuffixes,
  type SourceVerdict,
} from '../domain/check/index.ts';
import {
  checkArtifact,
  entryOf,
  type JwkSet,
  manifestKid,
  RefusedError,
  type TrustedManifest,
  verifyManifest,
} from './verify.ts';

/**
 * A reference client of the hash-prefix blocklist, with no dependencies beyond Node's own modules
 * and the service's expression, artifact and look-alike code: it keeps the prefixes of every
 * BLOCKED expression (the service's and the external lists') locally and sends the service nothing
 * but the prefixes of a local match, and of content a list blocks or that looks like a protected
 * domain, the prefixes of its other expressions, any of which may be allowlisted.
 */
export type BlocklistClientOptions = {
  /** The API base, e.g. `https://api.example.com/v2`. */
  baseUrl: string;
  apiKey: string;
  /** The suffix data content is canonicalized with, as the service does (`publicSuffixes(suffixFile)`: the shipped list). */
  suffixes: PublicSuffixes;
  /** How long confirmed full hashes (and confirmed misses) are kept. */
  confirmTtlMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
};

type ArtifactRef = { token: string; count: number; url: string; bytes: number };
type Version = {
  algoVersion: number;
  version: string;
  snapshot: ArtifactRef;
  recent: ArtifactRef;
  /** Absent from services that publish only their own verdicts. */
  lists?: ArtifactRef;
  manifest?: unknown;
};

/** What a sync did: `refused` says in one line why nothing of the answer was used (the last good state is kept). */
export type SyncResult = { changed: boolean; refused?: string };

export type Lookup = {
  blocked: boolean;
  /** The expression whose full hash was confirmed, when blocked. */
  expression?: string;
  /** Prefixes sent to the service for this lookup (0 unless a local match needed confirming). */
  sent: number;
};

/** Sorted union of `base` minus `removed` plus `added` (all sorted, unique). */
const applyRecent = (base: Uint32Array, added: Uint32Array, removed: Uint32Array): Uint32Array => {
  const out = new Uint32Array(base.length + added.length);
  let n = 0;
  let i = 0;
  let j = 0;
  let r = 0;
  while (i < base.length || j < added.length) {
    const fromBase = j >= added.length || (i < base.length && (base[i] as number) <= (added[j] as number));
    const value = fromBase ? (base[i++] as number) : (added[j++] as number);
    while (r < removed.length && (removed[r] as number) < value) r++;
    if (r < removed.length && removed[r] === value) continue;
    if (n === 0 || out[n - 1] !== value) out[n++] = value;
  }
  return out.slice(0, n);
};

type Confirmed = {
  /** The full hashes of the ALLOWED expressions consulted before one under the prefix. */
  allowed: readonly string[];
  /** What the service and each list say of every listed expression under the prefix. */
  verdicts: Map<string, Verdicts>;
  until: number;
};

type Hashed = { expression: string; hash: string; prefix: number };
type Plan = { keyed: Hashed[]; domained: Hashed[]; matched: Hashed[]; lookalike: boolean };
const MAX_CONFIRM = 1_000;

type ListName = Exclude<keyof Verdicts, 'service'>;
const ETH = 'eth-phishing-detect';
/** The lists that judge the check's keys, each on its own most specific listed key. */
const KEY_LISTS: readonly ListName[] = EXTERNAL_SOURCES.filter((source) => source !== ETH);
const NONE: Verdicts = Object.freeze({});

/** eth-phishing-detect's look-alike rule alone: the check's own source, with no listed domains. */
const lookalikeRule = ({ tolerance, domains }: Lookalikes): ExternalSource | undefined =>
  domains.length === 0 ? undefined : ethPhishingSource({ allow: [], block: [], fuzzy: domains, tolerance });

export class BlocklistClient {
  readonly #options: Required<Omit<BlocklistClientOptions, 'fetch'>> & { fetch: typeof fetch };
  #algoVersion = 0;
  #snapshot: { token: string; prefixes: Uint32Array } | undefined;
  #recentToken = '';
  #prefixes: Uint32Array = new Uint32Array();
  /** The external lists' BLOCKED prefixes and eth-phishing-detect's look-alike rule. */
  #lists: { token: string; prefixes: Uint32Array; lookalike: ExternalSource | undefined } | undefined;
  readonly #confirmed = new Map<number, Confirmed>();
  #keys: JwkSet = { keys: [] };
  #trusted: TrustedManifest | undefined;

  constructor(options: BlocklistClientOptions) {
    this.#options = {
      confirmTtlMs: 5 * 60_000,
      now: Date.now,
      ...options,
      fetch: options.fetch ?? fetch,
      baseUrl: options.baseUrl.replace(/\/$/, ''),
    };
  }

  /** Prefixes held locally. */
  get size(): number {
    return this.#prefixes.length + (this.#lists?.prefixes.length ?? 0);
  }

  async #api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const response = await this.#options.fetch(`${this.#options.baseUrl}${path}`, {
      method,
      headers: { 'X-API-KEY': this.#options.apiKey, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const parsed: unknown = await response.json();
    if (response.status !== 200 && response.status !== 409) {
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
    }
    return { status: response.status, body: parsed };
  }

  /** An artifact's bytes; `undefined` when the server says the held one (`held`) is current. */
  async #artifact(ref: ArtifactRef, held: string | undefined): Promise<Uint8Array | undefined> {
    const response = await this.#options.fetch(ref.url, {
      headers: held === undefined ? {} : { 'If-None-Match': `"${held}"` },
    });
    if (response.status === 304) return undefined;
    if (response.status !== 200) throw new Error(`Artifact ${ref.token} answered ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** The manifest the held state was last verified against: its key, version and issue time. */
  get trusted(): Pick<TrustedManifest, 'kid' | 'version' | 'issuedAt'> | undefined {
    return this.#trusted;
  }

  /** The manifest, verified under the service's key set, fetched again when it names a key not held. */
  async #verify(manifest: unknown): Promise<TrustedManifest> {
    const kid = manifestKid(manifest);
    if (!this.#keys.keys.some((key) => key.kid === kid)) {
      const response = await this.#options.fetch(`${this.#options.baseUrl}/asset/blocklist/keys`, {
        cache: 'no-store',
      });
      if (response.status !== 200) throw new RefusedError(`key set answered ${response.status}`);
      this.#keys = (await response.json()) as JwkSet;
    }
    return verifyManifest(manifest, this.#keys, { now: this.#options.now(), lastVersion: this.#trusted?.version });
  }

  /**
   * Brings the local prefixes up to the service's: the version, its manifest verified, then any
   * artifact whose token moved, each checked against the manifest. Nothing is kept until all of it
   * passed; a refusal keeps the last good state and says why.
   */
  async sync(): Promise<SyncResult> {
    const version = (await this.#api('GET', '/asset/blocklist/version')).body as Version;
    try {
      return await this.#apply(version);
    } catch (error) {
      if (error instanceof RefusedError) return { changed: false, refused: error.message };
      throw error;
    }
  }

  async #apply(version: Version): Promise<SyncResult> {
    const manifest = await this.#verify(version.manifest);
    if (manifest.algoVersion !== version.algoVersion || manifest.version !== version.version) {
      throw new RefusedError('version answer differs from its manifest');
    }
    const snapshotEntry = entryOf(manifest, version.snapshot.token);
    const recentEntry = entryOf(manifest, version.recent.token);
    const listsEntry = version.lists === undefined ? undefined : entryOf(manifest, version.lists.token);
    const reset = version.algoVersion !== this.#algoVersion;
    let snapshot = reset ? undefined : this.#snapshot;
    let recentToken = reset ? '' : this.#recentToken;
    let prefixes = this.#prefixes;
    let changed = false;
    if (version.snapshot.token !== snapshot?.token) {
      const bytes = await this.#artifact(version.snapshot, snapshot?.token);
      if (bytes !== undefined) {
        checkArtifact(bytes, snapshotEntry);
        const artifact = decodeArtifact(bytes);
        if (artifact.kind !== 'snapshot') throw new Error('The snapshot URL served another kind of artifact');
        snapshot = { token: version.snapshot.token, prefixes: artifact.prefixes };
        recentToken = '';
        changed = true;
      }
    }
    if (version.recent.token !== recentToken && snapshot !== undefined) {
      const bytes = await this.#artifact(version.recent, undefined);
      if (bytes !== undefined) {
        checkArtifact(bytes, recentEntry);
        const artifact = decodeArtifact(bytes);
        if (artifact.kind !== 'recent') throw new Error('The recent URL served another kind of artifact');
        prefixes = applyRecent(snapshot.prefixes, artifact.added, artifact.removed);
        recentToken = version.recent.token;
        changed = true;
      }
    }
    let lists = reset ? undefined : this.#lists;
    if (version.lists === undefined || listsEntry === undefined) lists = undefined;
    else if (version.lists.token !== lists?.token) {
      const bytes = await this.#artifact(version.lists, lists?.token);
      if (bytes !== undefined) {
        checkArtifact(bytes, listsEntry);
        const artifact = decodeArtifact(bytes);
        if (artifact.kind !== 'lists') throw new Error('The lists URL served another kind of artifact');
        lists = {
          token: version.lists.token,
          prefixes: artifact.prefixes,
          lookalike: lookalikeRule(artifact.lookalikes),
        };
        changed = true;
      }
    }
    this.#lists = lists;
    this.#algoVersion = version.algoVersion;
    this.#snapshot = snapshot;
    this.#recentToken = recentToken;
    this.#prefixes = prefixes;
    this.#trusted = manifest;
    if (changed || reset) this.#confirmed.clear();
    return { changed };
  }

  /**
   * Asks the service about the prefixes not confirmed (or expired), at most 1,000 a request; the
   * prefixes of `fresh` were confirmed by this call. False when it named another algorithm version.
   */
  async #confirm(prefixes: Iterable<number>): Promise<{ fresh: Set<number> } | false> {
    const now = this.#options.now();
    const ask = [...new Set(prefixes)].filter((prefix) => (this.#confirmed.get(prefix)?.until ?? 0) <= now);
    for (let start = 0; start < ask.length; start += MAX_CONFIRM) {
      const chunk = ask.slice(start, start + MAX_CONFIRM);
      const answer = await this.#api('POST', '/asset/blocklist/confirm', {
        algoVersion: this.#algoVersion,
        prefixes: chunk.map(prefixHex),
      });
      if (answer.status === 409) return false;
      const { allowed = {}, verdicts = {} } = answer.body as {
        allowed?: Record<string, string[]>;
        verdicts?: Record<string, Verdicts>;
      };
      for (const prefix of chunk) {
        this.#confirmed.set(prefix, {
          allowed: allowed[prefixHex(prefix)] ?? [],
          verdicts: new Map(),
          until: now + this.#options.confirmTtlMs,
        });
      }
      for (const [hash, said] of Object.entries(verdicts))
        this.#confirmed.get(prefixOf(hash))?.verdicts.set(hash, said);
    }
    return { fresh: new Set(ask) };
  }

  #verdicts(hash: string): Verdicts {
    return this.#confirmed.get(prefixOf(hash))?.verdicts.get(hash) ?? NONE;
  }

  /** Content's expressions with their hashes, those held locally, and whether its domain is a look-alike. */
  #plan(content: string): Plan {
    const { keys, domains, target } = lookupExpressionsOf(this.#options.suffixes, content);
    const hashed = (expression: string) => {
      const hash = fullHash(expression);
      return { expression, hash, prefix: prefixOf(hash) };
    };
    const keyed = keys.map(hashed);
    // A host is often both a key's and a domain's expression: hashed once.
    const domained = domains.map(
      (expression) => keyed.find((key) => key.expression === expression) ?? hashed(expression),
    );
    const lists = this.#lists;
    const held = (prefix: number) =>
      holds(this.#prefixes, prefix) || (lists !== undefined && holds(lists.prefixes, prefix));
    const lookalike =
      target !== undefined &&
      domained.length > 0 &&
      (lists?.lookalike?.check(target) as SourceVerdict | undefined)?.status === 'BLOCKED';
    return { keyed, domained, matched: [...keyed, ...domained].filter(({ prefix }) => held(prefix)), lookalike };
  }

  /**
   * The decision from the matched prefixes' confirmations: the service's verdict where it has one
   * (every BLOCKED expression is held, and an ALLOWED one comes with the blocked prefixes it masks),
   * not blocked where no list blocks either; `undefined` where a list blocks, which every
   * expression's confirmation must settle.
   */
  #decideMatched({ keyed, domained, matched, lookalike }: Plan): Omit<Lookup, 'sent'> | undefined {
    if (matched.length === 0 && !lookalike) return { blocked: false };
    const allowedHere = new Set(matched.flatMap(({ prefix }) => this.#confirmed.get(prefix)?.allowed ?? []));
    for (const { expression, hash } of keyed) {
      const service = this.#verdicts(hash).service;
      if (allowedHere.has(hash) || service === 'ALLOWED') return { blocked: false };
      if (service === 'BLOCKED') return { blocked: true, expression };
    }
    const listBlocked = (hash: string, sources: readonly ListName[]) =>
      sources.some((source) => this.#verdicts(hash)[source] === 'BLOCKED');
    const blocking =
      lookalike ||
      keyed.some(({ hash }) => listBlocked(hash, KEY_LISTS)) ||
      domained.some(({ hash }) => listBlocked(hash, [ETH]));
    return blocking ? undefined : { blocked: false };
  }

  /** The decision with every expression confirmed, as the check makes it. */
  #decideAll({ keyed, domained, lookalike }: Plan): Omit<Lookup, 'sent'> {
    for (const { expression, hash } of keyed) {
      const service = this.#verdicts(hash).service;
      if (service !== undefined) return service === 'BLOCKED' ? { blocked: true, expression } : { blocked: false };
    }
    let allowed = domained.some(({ hash }) => this.#verdicts(hash)[ETH] === 'ALLOWED');
    let blockedBy = allowed
      ? undefined
      : (domained.find(({ hash }) => this.#verdicts(hash)[ETH] === 'BLOCKED')?.expression ??
        (lookalike ? domained[0]?.expression : undefined));
    for (const source of KEY_LISTS) {
      const decisive = keyed.find(({ hash }) => this.#verdicts(hash)[source] !== undefined);
      if (decisive === undefined) continue;
      if (this.#verdicts(decisive.hash)[source] === 'ALLOWED') allowed = true;
      else blockedBy ??= decisive.expression;
    }
    return !allowed && blockedBy !== undefined ? { blocked: true, expression: blockedBy } : { blocked: false };
  }

  /**
   * Whether content is blocked, as the check decides it: decided locally unless one of its prefixes
   * is held (or its domain looks like a protected one), then confirmed. The service's own verdict
   * wins (the most specific expression with one decides); otherwise a list's allowlisting wins over
   * any list's block. A list block is settled only once every expression of the content is
   * confirmed, since an allowlisting anywhere among them overrides it: that second request is made
   * only for content some list blocks.
   */
  async lookup(content: string): Promise<Lookup> {
    return (await this.lookupAll([content]))[0] as Lookup;
  }

  /**
   * `lookup` of many contents at once (the links of a page, a wallet's history), with the
   * confirmations they need sent together: at most two rounds of requests of up to 1,000 prefixes.
   */
  async lookupAll(contents: readonly string[]): Promise<Lookup[]> {
    const plans = contents.map((content) => this.#plan(content));
    const first = await this.#confirm(plans.flatMap(({ matched }) => matched.map(({ prefix }) => prefix)));
    if (first === false) {
      await this.sync();
      return this.lookupAll(contents);
    }
    const decided = plans.map((plan) => this.#decideMatched(plan));
    const open = plans.filter((_, i) => decided[i] === undefined);
    const second = await this.#confirm(
      open.flatMap(({ keyed, domained }) => [...keyed, ...domained].map(({ prefix }) => prefix)),
    );
    if (second === false) {
      await this.sync();
      return this.lookupAll(contents);
    }
    return plans.map((plan, i) => {
      const sent = [...plan.keyed, ...plan.domained].filter(
        ({ prefix }) => first.fresh.has(prefix) || second.fresh.has(prefix),
      ).length;
      return { ...(decided[i] ?? this.#decideAll(plan)), sent };
    });
  }
}
