import * as v from 'valibot';
import { EgressRefusedError, targetOf } from '../../egress/index.ts';
import { type SnapshotStore, snapshotOf } from './lists.ts';
import type { PublicSuffixes } from './public-suffix.ts';
import { EXTERNAL_SOURCES, type ExternalSourceName } from './types.ts';

export type ListFeed = { source: ExternalSourceName; url: string };

/** Whether a list URL passes the egress policy in form (as in AWS); where its name resolves is checked at every fetch. */
const publicInForm = (url: string): boolean => {
  try {
    targetOf(url, { allowLoopback: false });
    return true;
  } catch (error) {
    if (error instanceof EgressRefusedError) return false;
    throw error;
  }
};

const FEEDS = v.record(
  v.picklist(EXTERNAL_SOURCES, `List sources are ${EXTERNAL_SOURCES.join(', ')}`),
  v.pipe(
    v.string(),
    v.url('A list URL must be an absolute URL'),
    v.check(publicInForm, 'A list URL must be a public https URL'),
  ),
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

/**
 * The list source port: the body of the list at `url`, or an error when it cannot be had (down,
 * slow, too large); the adapters bound the time and size.
 */
export type ListReader = (url: string) => Promise<string>;

type SyncPorts = { read: ListReader; now: () => Date; suffixes: PublicSuffixes };

const syncOne = async (
  feed: ListFeed,
  store: SnapshotStore,
  { read, now, suffixes }: SyncPorts,
): Promise<SyncOutcome> => {
  const body = await read(feed.url);
  const snapshot = snapshotOf(suffixes, feed.source, body, feed.url, now());
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
export const syncLists = (feeds: readonly ListFeed[], store: SnapshotStore, ports: SyncPorts) =>
  Promise.all(
    feeds.map((feed) =>
      syncOne(feed, store, ports).catch(
        (error: unknown): SyncOutcome => ({ source: feed.source, outcome: 'failed', error }),
      ),
    ),
  );

/** What a scheduled sync reads and writes: the configured lists, their snapshots and the reader of a list. */
export type ListSync = { feeds: ListFeed[]; store: SnapshotStore; read: ListReader; suffixes: PublicSuffixes };

/** The error that fails a scheduled sync (for its alarm) naming the lists that could not be synced, if any. */
export const syncFailure = (outcomes: readonly SyncOutcome[]): Error | undefined => {
  const failed = outcomes.filter((outcome) => outcome.outcome === 'failed').map((outcome) => outcome.source);
  return failed.length > 0 ? new Error(`List sync failed for ${failed.join(', ')}`) : undefined;
};
