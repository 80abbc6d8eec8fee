import * as v from 'valibot';
import { type SnapshotStore, snapshotOf } from './lists.ts';
import { EXTERNAL_SOURCES, type ExternalSourceName } from './types.ts';

export type ListFeed = { source: ExternalSourceName; url: string };

const FEEDS = v.record(
  v.picklist(EXTERNAL_SOURCES, `List sources are ${EXTERNAL_SOURCES.join(', ')}`),
  v.pipe(v.string(), v.url('A list URL must be an absolute URL')),
);

/** The configured list URLs (`{"polkadot-phishing": "https://…"}`); none when unset. */
export const parseFeeds = (json: string | undefined): ListFeed[] => {
  if (json === undefined) return [];
  const feeds = v.parse(FEEDS, JSON.parse(json));
  return Object.entries(feeds).map(([source, url]) => ({ source: source as ExternalSourceName, url }));
};

/** A synced list's snapshot in use: its entries and when its content was fetched (unchanged since). */
export type SyncOutcome =
  | { source: ExternalSourceName; outcome: 'saved'; version: string; entries: number; fetchedAt: string }
  | { source: ExternalSourceName; outcome: 'unchanged'; version: string; entries: number; fetchedAt: string }
  | { source: ExternalSourceName; outcome: 'failed'; error: unknown };

type SyncOptions = {
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
  maxBytes?: number;
  now?: () => Date;
};

const syncOne = async (
  feed: ListFeed,
  store: SnapshotStore,
  { fetch = globalThis.fetch, timeoutMs = 30_000, maxBytes = 64 * 1024 * 1024, now = () => new Date() }: SyncOptions,
): Promise<SyncOutcome> => {
  const response = await fetch(feed.url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  if (!response.ok) throw new Error(`${feed.url} answered ${response.status}`);
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > maxBytes) throw new Error(`${feed.url} is larger than ${maxBytes} bytes`);
  const body = await response.text();
  if (body.length > maxBytes) throw new Error(`${feed.url} is larger than ${maxBytes} bytes`);
  const snapshot = snapshotOf(feed.source, body, feed.url, now());
  if (snapshot.allow.length + snapshot.deny.length === 0) throw new Error(`${feed.url} holds no usable entries`);
  const current = await store.pointer(feed.source);
  if (current?.sha256 === snapshot.sha256)
    return {
      source: feed.source,
      outcome: 'unchanged',
      version: current.version,
      entries: current.entries,
      fetchedAt: current.fetchedAt,
    };
  await store.save(snapshot);
  return {
    source: feed.source,
    outcome: 'saved',
    version: snapshot.version,
    entries: snapshot.allow.length + snapshot.deny.length,
    fetchedAt: snapshot.fetchedAt,
  };
};

/**
 * Fetches every configured list, canonicalizes it with the check's own function and stores a
 * new versioned snapshot when its content changed. Feeds are independent: one failing (down,
 * slow, empty, malformed) leaves the others and its own last good snapshot in place.
 */
export const syncLists = (feeds: readonly ListFeed[], store: SnapshotStore, options: SyncOptions = {}) =>
  Promise.all(
    feeds.map((feed) =>
      syncOne(feed, store, options).catch(
        (error: unknown): SyncOutcome => ({ source: feed.source, outcome: 'failed', error }),
      ),
    ),
  );
