import { config } from '../../shared/config.ts';
import type { SnapshotStore } from '../../shared/domain/check/lists.ts';
import { type ListFeed, parseFeeds, type SyncOutcome, syncLists } from '../../shared/domain/check/sync.ts';
import { logger } from '../../shared/logger.ts';
import { publishListSync } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';

const report = (outcome: SyncOutcome) => {
  if (outcome.outcome === 'failed') logger.error('List sync failed', { source: outcome.source, error: outcome.error });
  else logger.info('List synced', outcome);
};

/** Scheduled every 5 minutes: a new snapshot per changed list; fails (for alarms) if any list could not be synced. */
export const createHandler =
  ({ feeds, store }: { feeds: ListFeed[]; store: SnapshotStore }) =>
  async () => {
    const outcomes = await syncLists(feeds, store);
    outcomes.forEach(report);
    publishListSync(outcomes, Date.now());
    const failed = outcomes.filter((outcome) => outcome.outcome === 'failed').map((outcome) => outcome.source);
    if (failed.length > 0) throw new Error(`List sync failed for ${failed.join(', ')}`);
    return outcomes;
  };

export const handler = createHandler({ feeds: parseFeeds(config.listUrls), store: runtime.listSnapshots() });
