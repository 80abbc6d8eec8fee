import { decodeArtifact, holds } from '../domain/blocklist/artifact.ts';
import { expressionsOf, fullHash, prefixHex, prefixOf } from '../domain/blocklist/expressions.ts';
import type { PublicSuffixes } from '../domain/check/index.ts';
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
 * and the service's expression and artifact code: it keeps the prefixes of every BLOCKED
 * expression locally and sends the service nothing but the prefixes of a local match.
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
type Version = { algoVersion: number; version: string; snapshot: ArtifactRef; recent: ArtifactRef; manifest?: unknown };

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

export class BlocklistClient {
  readonly #options: Required<Omit<BlocklistClientOptions, 'fetch'>> & { fetch: typeof fetch };
  #algoVersion = 0;
  #snapshot: { token: string; prefixes: Uint32Array } | undefined;
  #recentToken = '';
  #prefixes: Uint32Array = new Uint32Array();
  readonly #confirmed = new Map<number, { hashes: Set<string>; allowed: readonly string[]; until: number }>();
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
    return this.#prefixes.length;
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
    this.#algoVersion = version.algoVersion;
    this.#snapshot = snapshot;
    this.#recentToken = recentToken;
    this.#prefixes = prefixes;
    this.#trusted = manifest;
    if (changed || reset) this.#confirmed.clear();
    return { changed };
  }

  /** Whether content is blocked: decided locally unless one of its prefixes is held, then confirmed. */
  async lookup(content: string): Promise<Lookup> {
    const hashes = expressionsOf(this.#options.suffixes, content).map((expression) => ({
      expression,
      hash: fullHash(expression),
    }));
    const matched = hashes.filter(({ hash }) => holds(this.#prefixes, prefixOf(hash)));
    if (matched.length === 0) return { blocked: false, sent: 0 };
    const now = this.#options.now();
    const ask = [
      ...new Set(
        matched.map(({ hash }) => prefixOf(hash)).filter((prefix) => (this.#confirmed.get(prefix)?.until ?? 0) <= now),
      ),
    ];
    if (ask.length > 0) {
      const answer = await this.#api('POST', '/asset/blocklist/confirm', {
        algoVersion: this.#algoVersion,
        prefixes: ask.map(prefixHex),
      });
      if (answer.status === 409) {
        await this.sync();
        return this.lookup(content);
      }
      const { matches, allowed = {} } = answer.body as {
        matches: Record<string, string[]>;
        allowed?: Record<string, string[]>;
      };
      for (const prefix of ask) {
        this.#confirmed.set(prefix, {
          hashes: new Set(matches[prefixHex(prefix)] ?? []),
          allowed: allowed[prefixHex(prefix)] ?? [],
          until: now + this.#options.confirmTtlMs,
        });
      }
    }
    // As the check: the most specific expression with a verdict decides, and an allowlisted one
    // (listed with the prefixes it masks) keeps its URLs unblocked under a blocked parent.
    const allowedHere = new Set(matched.flatMap(({ hash }) => this.#confirmed.get(prefixOf(hash))?.allowed ?? []));
    for (const { expression, hash } of hashes) {
      if (allowedHere.has(hash)) return { blocked: false, sent: ask.length };
      if (this.#confirmed.get(prefixOf(hash))?.hashes.has(hash)) return { blocked: true, expression, sent: ask.length };
    }
    return { blocked: false, sent: ask.length };
  }
}
