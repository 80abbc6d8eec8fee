import { createHash } from 'node:crypto';
import { entryKeyOf } from './canonical.ts';
import { type EthPhishingConfig, type EthPhishingLists, ethListsOf, ethPhishingSource } from './eth-phishing-detect.ts';
import { hashesOf, KeyTable } from './key-table.ts';
import type { PublicSuffixes } from './public-suffix.ts';
import type { ExternalSource, ExternalSourceName, KeyTarget, SourceVerdict } from './types.ts';
import { EXTERNAL_SOURCES } from './types.ts';

/**
 * One stored version of an external list. Entries are already canonical: check-index keys for
 * the key-based lists, canonical hosts (with `www.` kept) for eth-phishing-detect, whose
 * semantics are per domain.
 */
export type ListSnapshot = {
  source: ExternalSourceName;
  version: string;
  fetchedAt: string;
  url: string;
  sha256: string;
  allow: string[];
  deny: string[];
  fuzzy?: string[];
  tolerance?: number;
};

/** What the `latest` pointer of a source holds. */
export type SnapshotPointer = Pick<ListSnapshot, 'source' | 'version' | 'fetchedAt' | 'sha256'> & { entries: number };

export interface SnapshotStore {
  latest(source: ExternalSourceName): Promise<ListSnapshot | undefined>;
  pointer(source: ExternalSourceName): Promise<SnapshotPointer | undefined>;
  save(snapshot: ListSnapshot): Promise<void>;
}

const UNKNOWN: SourceVerdict = Object.freeze({ status: 'UNKNOWN' });

type KeyList = { name: ExternalSourceName; allow: readonly string[]; deny: readonly string[]; budgetMs?: number };

/**
 * Key-based lists, each a source of its own: the most specific candidate key a list holds
 * decides, its allow entry before its deny entry. One table holds every list's entries (two bits
 * per list), and the engine asks the lists one after another about the same target, so the
 * first to be asked looks the target's keys up once for all of them.
 */
export const listSources = (lists: readonly KeyList[]): ExternalSource[] => {
  const listed = new KeyTable(lists.reduce((count, { allow, deny }) => count + allow.length + deny.length, 0));
  lists.forEach(({ allow, deny }, i) => {
    for (const key of allow) listed.flag(key, 1 << (2 * i));
    for (const key of deny) listed.flag(key, 2 << (2 * i));
  });
  let asked: KeyTarget | undefined;
  // Only grows: the first `keys.length` entries are the target's.
  const found: number[] = [];
  const foundFor = (target: KeyTarget): number[] => {
    if (target !== asked) {
      const { keys } = target;
      const hashes = hashesOf(keys);
      for (let k = 0; k < keys.length; k++) found[k] = listed.get(keys[k] as string, hashes[k]) ?? 0;
      asked = target;
    }
    return found;
  };
  return lists.map(({ name, budgetMs = 50 }, i) => ({
    name,
    budgetMs,
    check: (target: KeyTarget): SourceVerdict => {
      const { keys, levels } = target;
      const flags = foundFor(target);
      for (let k = 0; k < keys.length; k++) {
        const bits = ((flags[k] as number) >> (2 * i)) & 3;
        if (bits === 0) continue;
        const key = keys[k] as string;
        if (bits & 1) return { status: 'ALLOWED', key, level: levels[k], message: `${name} allowlists ${key}` };
        return { status: 'BLOCKED', key, level: levels[k], message: `${name} lists ${key}` };
      }
      return UNKNOWN;
    },
  }));
};

/** One key-based list as a source (see `listSources`). */
export const listSource = (
  name: ExternalSourceName,
  lists: { allow: readonly string[]; deny: readonly string[] },
  { budgetMs = 50 } = {},
): ExternalSource => listSources([{ name, ...lists, budgetMs }])[0] as ExternalSource;

const sortedUnique = (values: Iterable<string>): string[] => [...new Set(values)].sort();

const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** Plain text lists: one entry a line, `#` comments, hosts-file lines (`0.0.0.0 evil.example`). */
const linesOf = (text: string): string[] =>
  text.split(/\r?\n/).flatMap((line) => {
    const content = line.replace(/#.*/, '').trim();
    if (content === '') return [];
    const words = content.split(/\s+/);
    return [words[words.length - 1] as string];
  });

const parseJson = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

/**
 * The allow and deny entries of a fetched list, whatever its shape: `{allow, deny}` (polkadot's
 * all.json), any object of string arrays (polkadot's address.json), a JSON array or plain text
 * (deny entries).
 */
const rawEntriesOf = (body: string): { allow: string[]; deny: string[] } => {
  const json = parseJson(body);
  if (Array.isArray(json)) return { allow: [], deny: stringsOf(json) };
  if (json !== null && typeof json === 'object') {
    const record = json as Record<string, unknown>;
    if ('allow' in record || 'deny' in record) return { allow: stringsOf(record.allow), deny: stringsOf(record.deny) };
    return { allow: [], deny: Object.values(record).flatMap(stringsOf) };
  }
  return { allow: [], deny: linesOf(body) };
};

const digest = (lists: object): string => createHash('sha256').update(JSON.stringify(lists)).digest('hex');

/** A snapshot of a fetched list body, its entries canonicalized by the check's own function. */
export const snapshotOf = (
  suffixes: PublicSuffixes,
  source: ExternalSourceName,
  body: string,
  url: string,
  fetchedAt: Date,
): ListSnapshot => {
  let lists: Pick<ListSnapshot, 'allow' | 'deny' | 'fuzzy' | 'tolerance'>;
  if (source === 'eth-phishing-detect') {
    const eth = ethListsOf((parseJson(body) ?? {}) as EthPhishingConfig);
    lists = {
      allow: sortedUnique(eth.allow),
      deny: sortedUnique(eth.block),
      fuzzy: [...eth.fuzzy],
      tolerance: eth.tolerance,
    };
  } else {
    const raw = rawEntriesOf(body);
    const keys = (entries: string[]) => sortedUnique(entries.flatMap((entry) => entryKeyOf(suffixes, entry) ?? []));
    lists = { allow: keys(raw.allow), deny: keys(raw.deny) };
  }
  const sha256 = digest(lists);
  const stamp = fetchedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return {
    source,
    version: `${stamp}-${sha256.slice(0, 12)}`,
    fetchedAt: fetchedAt.toISOString(),
    url,
    sha256,
    ...lists,
  };
};

const ethListsOfSnapshot = (snapshot: ListSnapshot): EthPhishingLists => ({
  allow: snapshot.allow,
  block: snapshot.deny,
  fuzzy: snapshot.fuzzy ?? [],
  tolerance: snapshot.tolerance ?? 0,
});

type SourceBudgets = Partial<Record<ExternalSourceName, number>>;

/** A key-based list's entries (check-index keys). */
export type KeyListEntries = { name: ExternalSourceName; allow: readonly string[]; deny: readonly string[] };

/**
 * Every list the check consults, as loaded: eth-phishing-detect (always: its snapshot or the list
 * the npm package ships) and the key-based lists that have a snapshot. `version` names the
 * content (the snapshots' digests), so equal versions hold equal lists.
 */
export type ExternalLists = { version: string; eth: EthPhishingLists; keyLists: KeyListEntries[] };

/**
 * The lists from the latest snapshots: eth-phishing-detect from its snapshot when one was synced,
 * else from the list the npm package ships (read only then); the other lists only when a snapshot
 * exists (a source without data is not consulted). The check and the blocklist load them alike.
 * A snapshot that fails to load counts as none (its digest is missing from the version), so a
 * reader comparing the version with `externalListsVersion` loads again.
 */
export const loadExternalLists = async (
  store: SnapshotStore | undefined,
  shippedEth: () => EthPhishingConfig | Promise<EthPhishingConfig>,
  { onError = (_source: ExternalSourceName, _error: unknown) => {} }: Pick<LoadOptions, 'onError'> = {},
): Promise<ExternalLists> => {
  const snapshots = await Promise.all(
    EXTERNAL_SOURCES.map((source) =>
      store?.latest(source).catch((error: unknown) => {
        onError(source, error);
        return undefined;
      }),
    ),
  );
  const ethSnapshot = snapshots[EXTERNAL_SOURCES.indexOf('eth-phishing-detect')];
  const eth = ethSnapshot ? ethListsOfSnapshot(ethSnapshot) : ethListsOf(await shippedEth());
  const keyLists = EXTERNAL_SOURCES.flatMap((name, i) => {
    const snapshot = snapshots[i];
    return name === 'eth-phishing-detect' || snapshot === undefined
      ? []
      : [{ name, allow: snapshot.allow, deny: snapshot.deny }];
  });
  return { version: versionOf(snapshots.map((snapshot) => snapshot?.sha256)), eth, keyLists };
};

/** The lists' version from each source's snapshot digest, in the order of EXTERNAL_SOURCES (the shipped list never changes). */
const versionOf = (digests: readonly (string | undefined)[]): string =>
  digests.map((sha256, i) => `${EXTERNAL_SOURCES[i]}:${sha256 ?? '-'}`).join(',');

/** The version `loadExternalLists` would answer, from the snapshots' pointers alone (no list is read). */
export const externalListsVersion = async (store: SnapshotStore | undefined): Promise<string> =>
  versionOf(await Promise.all(EXTERNAL_SOURCES.map(async (source) => (await store?.pointer(source))?.sha256)));

/** The in-memory external sources, from the latest snapshots (see `loadExternalLists`). */
export const loadExternalSources = async (
  store: SnapshotStore | undefined,
  shippedEth: () => EthPhishingConfig | Promise<EthPhishingConfig>,
  { budgets = {}, onError = (_source: ExternalSourceName, _error: unknown) => {} }: LoadOptions = {},
): Promise<ExternalSource[]> => {
  const { eth, keyLists } = await loadExternalLists(store, shippedEth, { onError });
  return [
    ethPhishingSource(eth, { budgetMs: budgets['eth-phishing-detect'] ?? 50 }),
    ...listSources(keyLists.map((list) => ({ ...list, budgetMs: budgets[list.name] ?? 50 }))),
  ];
};

type LoadOptions = { budgets?: SourceBudgets; onError?: (source: ExternalSourceName, error: unknown) => void };

/**
 * Keeps the external sources fresh without delaying checks: the first call waits for the
 * load, later calls answer at once and, every `refreshMs`, start one reload in the background.
 * A failed load keeps what was loaded before (nothing, at first: the check still answers).
 */
export const refreshingSources = (
  load: () => Promise<readonly ExternalSource[]>,
  { refreshMs = 5 * 60_000, now = Date.now, onError = (_error: unknown) => {} } = {},
) => {
  let current: readonly ExternalSource[] | undefined;
  let loadedAt = 0;
  let loading: Promise<readonly ExternalSource[]> | undefined;
  const reload = (): Promise<readonly ExternalSource[]> => {
    loading ??= load()
      .then(
        (sources) => {
          current = sources;
          loadedAt = now();
          return sources;
        },
        (error: unknown) => {
          onError(error);
          current ??= [];
          loadedAt = now();
          return current;
        },
      )
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
  return {
    /** Starts the first load now, before any request waits for it (at init, when Lambda initializes ahead of requests). */
    warm: (): void => {
      void reload();
    },
    get: (): readonly ExternalSource[] | Promise<readonly ExternalSource[]> => {
      if (current === undefined) return reload();
      if (now() - loadedAt >= refreshMs) void reload();
      return current;
    },
  };
};
