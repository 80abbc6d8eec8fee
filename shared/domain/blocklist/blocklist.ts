import { ConflictError } from '../../errors.ts';
import type { ExternalLists, PublicSuffixes } from '../check/index.ts';
import {
  bitsOfPacked,
  LOG_TIMING,
  positionAt,
  readWholeIndex,
  statusOf,
  timeOf,
  type VerdictLog,
  type VerdictSnapshot,
  type VerdictSnapshotStore,
  VerdictState,
} from '../verdict-feed/index.ts';
import { decodeArtifact, encodeArtifact, sortedUnique, tokenOf } from './artifact.ts';
import { ALGO_VERSION, entryExpressions, fullHash, prefixOf } from './expressions.ts';
import { type ListIndex, listIndexOf, type Verdicts } from './list-index.ts';
import { type ManifestIssuer, sha256Hex } from './manifest.ts';
import { AllowMasks, PrefixState } from './prefix-state.ts';

/** The snapshot artifact clients start from, as its builder announces it. */
export type SnapshotPointer = { algoVersion: number; token: string; count: number; bytes: number; position: string };

/** Where artifacts are kept by token, and which snapshot is current. */
export interface ArtifactStore {
  get(token: string): Promise<Uint8Array | undefined>;
  /** Stores an artifact under its token; the same token always carries the same bytes. */
  put(token: string, bytes: Uint8Array): Promise<void>;
  current(): Promise<SnapshotPointer | undefined>;
  setCurrent(pointer: SnapshotPointer): Promise<void>;
}

export type ArtifactRef = { token: string; count: number; bytes: number };

export type BlocklistVersion = {
  algoVersion: number;
  version: string;
  updatedAt: string;
  entries: number;
  snapshot: ArtifactRef;
  recent: ArtifactRef;
  /** The external lists' BLOCKED prefixes and look-alike rule (empty where the stage publishes only the service's verdicts). */
  lists: ArtifactRef;
  /** The signed manifest of this answer (compact JWS, EdDSA, over each artifact's SHA-256 and size); absent where no signing key exists yet. */
  manifest?: string;
};

const EMPTY_LISTS: ListIndex = {
  version: '',
  artifact: { token: '', count: 0, bytes: 0, sha256: '', content: new Uint8Array() },
  under: () => [],
};

const isBlocked = (bits: number): boolean => statusOf(bits) === 'BLOCKED';
const isAllowed = (bits: number): boolean => statusOf(bits) === 'ALLOWED';

/** Every prefix of the BLOCKED entries of a verdict snapshot, sorted. */
export const snapshotPrefixes = (snapshot: Pick<VerdictSnapshot, 'keys' | 'states'>): Uint32Array => {
  const prefixes: number[] = [];
  for (let i = 0; i < snapshot.keys.length; i++) {
    if (!isBlocked(bitsOfPacked(snapshot.states[i] as number))) continue;
    for (const expression of entryExpressions(snapshot.keys[i] as string))
      prefixes.push(prefixOf(fullHash(expression)));
  }
  return sortedUnique(prefixes);
};

/** Encodes and stores a snapshot artifact of `prefixes` and makes it the current one. */
export const publishSnapshot = async (
  artifacts: ArtifactStore,
  prefixes: Uint32Array,
  position: string,
): Promise<SnapshotPointer & { sha256: string }> => {
  const bytes = encodeArtifact({ kind: 'snapshot', algoVersion: ALGO_VERSION, prefixes });
  const pointer = {
    algoVersion: ALGO_VERSION,
    token: tokenOf(bytes),
    count: prefixes.length,
    bytes: bytes.length,
    position,
  };
  await artifacts.put(pointer.token, bytes);
  await artifacts.setCurrent(pointer);
  return { ...pointer, sha256: sha256Hex(bytes) };
};

/**
 * The compaction job's step: the snapshot artifact of a freshly compacted verdict snapshot (itself
 * carried forward from the verdict log, never read from the whole table), published as current.
 */
export const publishBlocklistSnapshot = (artifacts: ArtifactStore, snapshot: VerdictSnapshot) =>
  publishSnapshot(artifacts, snapshotPrefixes(snapshot), snapshot.position);

type Options = {
  log: VerdictLog;
  /** Where the verdict snapshots are; without a store (locally, in tests) the index itself is read. */
  snapshots?: VerdictSnapshotStore;
  artifacts: ArtifactStore;
  /** The suffix data an entry's less specific expressions are found with. */
  suffixes: PublicSuffixes;
  now?: () => number;
  /** At most one log poll per this interval. */
  pollMs?: number;
  /** How often the current snapshot artifact is looked up (the compaction job replaces it). */
  pointerMs?: number;
  /**
   * The lists the check consults, published beside the service's verdicts so a client reaches the
   * check's verdict on list-blocked content too; without it only the service's verdicts are.
   */
  lists?: { version(): Promise<string>; load(): Promise<ExternalLists> };
  /** At most one look at the lists' version per this interval; they are loaded only when it moved. */
  listsMs?: number;
  /** A lists load that failed (the lists loaded before stay published). */
  onListsError?: (error: unknown) => void;
  /** A read of the log that failed: answers go on from the verdicts held (as the check's replica does) until a poll succeeds. */
  onPollError?: (error: unknown) => void;
};

export type Confirmation = {
  /** Per requested prefix, the full hashes of the BLOCKED expressions under it. */
  matches: Record<string, string[]>;
  /** Per requested prefix that has any, the full hashes of ALLOWED expressions that mask an expression under it. */
  allowed: Record<string, string[]>;
  /** Every listed expression under the requested prefixes, by full hash: what the service and each list say of it. */
  verdicts: Record<string, Verdicts>;
};

export type Blocklist = {
  /** With `manifests` (the signing route's), the answer carries its signed manifest. */
  version(manifests?: ManifestIssuer): Promise<BlocklistVersion>;
  /** `algoVersion` must be the current one. */
  confirm(algoVersion: number, prefixes: readonly string[]): Promise<Confirmation>;
};

/**
 * The service side of the hash-prefix blocklist: the verdicts in memory (snapshot, then the log,
 * as the check's replica keeps them), the prefixes of every BLOCKED entry with their full hashes,
 * and the artifacts clients sync from. The snapshot artifact is the compaction job's (or, until
 * there is one, this state's at load); the recent artifact (additions and removals since that
 * snapshot) is kept up to date change by change and stored under a new token when it moved.
 */
export const blocklist = ({
  log,
  snapshots,
  artifacts,
  suffixes,
  now = Date.now,
  pollMs = 1_000,
  pointerMs = 30_000,
  lists,
  listsMs = 60_000,
  onListsError = () => {},
  onPollError = () => {},
}: Options): Blocklist => {
  type Loaded = {
    verdicts: VerdictState;
    prefixes: PrefixState;
    masks: AllowMasks;
    base: SnapshotPointer;
    /** The SHA-256 of the base snapshot artifact's bytes. */
    baseSha256: string;
    lists: ListIndex;
  };
  let loaded: Promise<Loaded> | undefined;
  let polling: Promise<void> | undefined;
  let polledAt = Number.NEGATIVE_INFINITY;
  let pointerAt = Number.NEGATIVE_INFINITY;
  let listsAt = Number.NEGATIVE_INFINITY;
  let listing: Promise<void> | undefined;
  let recent: { changes: number; ref: ArtifactRef; sha256: string } | undefined;

  const apply = async (state: Loaded) => {
    const startedAt = now();
    const changes = await log.readFrom(state.verdicts.position);
    const horizon = positionAt(startedAt - LOG_TIMING.settleMs);
    for (const change of changes) {
      const [before] = state.verdicts.lookup([change.key]);
      const wasBlocked = before !== undefined && before.allow === 0 && before.block > 0;
      const wasAllowed = before !== undefined && before.allow > 0;
      if (state.verdicts.apply(change) !== 'duplicate') {
        if (wasBlocked !== isBlocked(change.bits)) state.prefixes.set(change.key, isBlocked(change.bits));
        if (wasAllowed !== isAllowed(change.bits)) state.masks.set(change.key, isAllowed(change.bits));
      }
      if (change.version < horizon && change.version > state.verdicts.version) state.verdicts.version = change.version;
    }
    if (horizon > state.verdicts.position) state.verdicts.position = horizon;
    polledAt = startedAt;
  };

  /** Adopts the current snapshot artifact, publishing this state's own when there is none yet. */
  const followPointer = async (state: Loaded) => {
    pointerAt = now();
    const pointer = await artifacts.current();
    if (pointer === undefined || pointer.algoVersion !== ALGO_VERSION) {
      const prefixes = state.prefixes.prefixes();
      const { sha256, ...pointer } = await publishSnapshot(artifacts, prefixes, state.verdicts.position);
      state.base = pointer;
      state.baseSha256 = sha256;
      state.prefixes.rebase(prefixes);
      return;
    }
    if (pointer.token === state.base.token) return;
    const bytes = await artifacts.get(pointer.token);
    if (bytes === undefined) return;
    const artifact = decodeArtifact(bytes);
    if (artifact.kind !== 'snapshot') return;
    state.prefixes.rebase(artifact.prefixes);
    state.base = pointer;
    state.baseSha256 = sha256Hex(bytes);
  };

  /**
   * Rebuilds the lists' index when their content moved, and stores its artifact; answers keep the
   * index they had until the new one is stored, so each answer's artifacts and manifest agree.
   */
  const followLists = async (state: Loaded) => {
    listsAt = now();
    try {
      let next: ExternalLists | undefined;
      if (lists !== undefined) {
        const version = await lists.version();
        if (version === state.lists.version && state.lists.artifact.token !== '') return;
        next = await lists.load();
      } else if (state.lists.artifact.token !== '') return;
      const index = listIndexOf(next);
      await artifacts.put(index.artifact.token, index.artifact.content);
      state.lists = index;
    } catch (error) {
      onListsError(error);
    }
  };

  const load = async (): Promise<Loaded> => {
    const snapshot = snapshots === undefined ? await readWholeIndex(log, now) : await snapshots.latest();
    if (snapshot === undefined) throw new Error('No verdict snapshot to start the blocklist from');
    const verdicts = VerdictState.of(snapshot);
    const prefixes = new PrefixState();
    const masks = new AllowMasks(suffixes);
    for (let i = 0; i < snapshot.keys.length; i++) {
      const bits = bitsOfPacked(snapshot.states[i] as number);
      if (isBlocked(bits)) prefixes.set(snapshot.keys[i] as string, true);
      else if (isAllowed(bits)) masks.set(snapshot.keys[i] as string, true);
    }
    const state: Loaded = {
      verdicts,
      prefixes,
      masks,
      base: { algoVersion: ALGO_VERSION, token: '', count: 0, bytes: 0, position: snapshot.position },
      baseSha256: sha256Hex(new Uint8Array()),
      lists: EMPTY_LISTS,
    };
    await apply(state);
    await followPointer(state);
    await followLists(state);
    return state;
  };

  const current = async (): Promise<Loaded> => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    const state = await loaded;
    if (polling === undefined && now() - polledAt >= pollMs) {
      polling = (async () => {
        await apply(state);
        if (now() - pointerAt >= pointerMs) await followPointer(state);
      })()
        .catch(onPollError)
        .finally(() => {
          polling = undefined;
        });
    }
    // In the background: a list's new snapshot (a large list takes a while to index) never holds up an answer.
    if (listing === undefined && now() - listsAt >= listsMs) {
      listing = followLists(state).finally(() => {
        listing = undefined;
      });
    }
    if (polling) await polling;
    return state;
  };

  const recentArtifact = async (state: Loaded): Promise<{ ref: ArtifactRef; sha256: string }> => {
    if (recent?.changes === state.prefixes.changes) return recent;
    const changes = state.prefixes.changes;
    const { added, removed } = state.prefixes.recent();
    const bytes = encodeArtifact({ kind: 'recent', algoVersion: ALGO_VERSION, added, removed });
    const ref = { token: tokenOf(bytes), count: added.length + removed.length, bytes: bytes.length };
    await artifacts.put(ref.token, bytes);
    recent = { changes, ref, sha256: sha256Hex(bytes) };
    return recent;
  };

  return {
    async version(manifests) {
      const state = await current();
      const { token, count, bytes } = state.base;
      const baseSha256 = state.baseSha256;
      const changes = await recentArtifact(state);
      const answer = {
        algoVersion: ALGO_VERSION,
        version: state.verdicts.version,
        updatedAt: new Date(timeOf(state.verdicts.version)).toISOString(),
        entries: state.verdicts.live,
        snapshot: { token, count, bytes },
        recent: changes.ref,
        lists: {
          token: state.lists.artifact.token,
          count: state.lists.artifact.count,
          bytes: state.lists.artifact.bytes,
        },
      };
      const manifest = await manifests?.({
        algoVersion: answer.algoVersion,
        version: answer.version,
        artifacts: [
          { token, sha256: baseSha256, bytes },
          { token: changes.ref.token, sha256: changes.sha256, bytes: changes.ref.bytes },
          { token: answer.lists.token, sha256: state.lists.artifact.sha256, bytes: answer.lists.bytes },
        ],
      });
      return manifest === undefined ? answer : { ...answer, manifest };
    },
    async confirm(algoVersion, prefixes) {
      if (algoVersion !== ALGO_VERSION) {
        throw new ConflictError(`algoVersion ${ALGO_VERSION} is current; re-sync`, {
          data: { algoVersion: ALGO_VERSION },
        });
      }
      const state = await current();
      const matches: Record<string, string[]> = {};
      const allowed: Record<string, string[]> = {};
      const verdicts: Record<string, Verdicts> = {};
      const say = (hash: string, said: Verdicts) => {
        verdicts[hash] = { ...verdicts[hash], ...said };
      };
      for (const prefix of prefixes) {
        const value = Number.parseInt(prefix, 16);
        const blocked = state.prefixes.hashesOf(value);
        for (const hash of blocked) say(hash, { service: 'BLOCKED' });
        for (const hash of state.masks.own(value)) say(hash, { service: 'ALLOWED' });
        const listed = state.lists.under(value);
        for (const [hash, said] of listed) say(hash, said);
        const listBlocked = listed.flatMap(([hash, said]) =>
          Object.values(said).includes('BLOCKED') && !blocked.includes(hash) ? [hash] : [],
        );
        matches[prefix] = [...blocked, ...listBlocked];
        const masking = state.masks.under(value);
        if (masking.length > 0) allowed[prefix] = [...masking];
      }
      return { matches, allowed, verdicts };
    },
  };
};
