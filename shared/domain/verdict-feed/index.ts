/**
 * The verdict feed as a module: the verdict log's domain side (changes, versions, snapshots), the
 * publisher that turns the log into deltas under a lease, the replica a check container answers
 * from, the snapshot job, and the clients' export and changelog. It performs no I/O of its own:
 * the repositories (`shared/db/verdict-log.ts`, the feed and snapshot stores, the lease) are its
 * ports, passed in where the process is composed. Every duration it keeps is in `timing.ts`, and
 * every part takes its settle window and clock as options, so tests move time instead of waiting.
 *
 * Ports: `VerdictLog` and `ChangeFeed` (the log), `VerdictSnapshotStore`, `FeedStore`, `Lease`,
 * `VerdictExportStore`; the check reads the replica through its `CheckIndexStore`.
 */
export { type ChangelogQuery, changelogReader, readChangelog } from './changelog.ts';
export {
  EXPORT_STATUSES,
  type ExportedEntry,
  type ExportPageQuery,
  type ExportStatus,
  listVerdicts,
  MAX_PAGE_BYTES,
  type VerdictExportStore,
} from './export.ts';
export { type Lease, type PublishOutcome, runPublisher, type VerdictPublisher, verdictPublisher } from './publisher.ts';
export { type ReplicaStatus, type ReplicatedIndex, replicatedIndex } from './replica.ts';
export {
  compactSnapshot,
  nextSnapshot,
  readWholeIndex,
  type SnapshotJob,
  snapshotVerdicts,
  storeVerdictSnapshot,
} from './snapshots.ts';
export { applyChanges, applyLog, VerdictState } from './state.ts';
export {
  CHANGELOG_READS,
  FEED_POLLING,
  LOG_TIMING,
  PUBLISHER_RUN,
  PUBLISHER_TIMING,
  PUBLISHING,
  REPLICA_TIMING,
  SNAPSHOT_TIMING,
} from './timing.ts';
export {
  type FeedDelta,
  type FeedPointer,
  type FeedStore,
  feedSource,
  LATE_RETRY_MS,
  logSource,
  type SourceRead,
  type VerdictSource,
} from './verdict-source.ts';
export {
  BIT,
  bitsOf,
  bitsOfPacked,
  type ChangeFeed,
  type ChangesPage,
  entryOfBits,
  type IndexPage,
  type IndexRebuild,
  isLive,
  isVersion,
  type LogLayouts,
  pack,
  positionAt,
  seqOf,
  statusOf,
  timeOf,
  VERSION_PATTERN,
  type VerdictChange,
  type VerdictLog,
  type VerdictSnapshot,
  type VerdictSnapshotStore,
  versionOf,
  watchStatusOf,
} from './verdicts.ts';
