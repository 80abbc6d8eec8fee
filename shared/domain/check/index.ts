/**
 * The asset check as a module: the engine, canonicalization, the external lists and their sync,
 * and the ports through which it reaches the world. It performs no I/O of its own; the process's
 * composition (`shared/runtime.ts`, the local tools, the tests) passes in the adapters of
 * `shared/db/adapters/` and the repositories as parameters: no module of it holds state.
 *
 * Ports:
 * - verdict source: `CheckIndexStore` (the service's own verdicts by candidate key; in a check
 *   container the verdict feed's replica, `shared/domain/verdict-feed/`);
 * - list source: `ListReader` (a list's body by URL) and `SnapshotStore` (the synced snapshots),
 *   plus the list shipped with eth-phishing-detect, passed to `loadExternalSources`;
 * - suffix data: `SuffixSource` (the packed Public Suffix List), made into the `PublicSuffixes`
 *   value by `publicSuffixes` and passed to every function that looks a suffix up;
 * - time: `Timer` for the sources' budgets.
 */
export { canonicalHost, canonicalize, entryKeyOf } from './canonical.ts';
export { type Checker, type CheckerOptions, createChecker, type Timer } from './engine.ts';
export { type EthPhishingConfig, type EthPhishingLists, ethPhishingSource } from './eth-phishing-detect.ts';
export { onHostingPlatform } from './hosting.ts';
export { hashesOf, KeyTable } from './key-table.ts';
export {
  type ExternalLists,
  externalListsVersion,
  type KeyListEntries,
  type ListSnapshot,
  listSource,
  listSources,
  loadExternalLists,
  loadExternalSources,
  refreshingSources,
  type SnapshotPointer,
  type SnapshotStore,
  snapshotOf,
} from './lists.ts';
export { platformRule } from './platforms.ts';
export {
  isTopLevelLabel,
  type PackedSuffixes,
  PUBLIC_SUFFIXES_FILE,
  type PublicSuffixes,
  publicSuffixes,
  publicSuffixLength,
  type SuffixSource,
} from './public-suffix.ts';
export {
  type ListFeed,
  type ListReader,
  type ListSync,
  parseFeeds,
  type SyncOutcome,
  syncFailure,
  syncLists,
} from './sync.ts';
export * from './types.ts';
