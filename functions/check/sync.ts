import { config } from '../../shared/config.ts';
import {
  type ListFeed,
  type ListReader,
  parseFeeds,
  type SnapshotStore,
  type SyncOutcome,
  syncLists,
} from '../../shared/domain/check/index.ts';
import { logger } from '../../shared/logger.ts';
import { publishListSync } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

const report = (outcome: SyncOutcome) => {
  if (outcome.outcome === 'failed') logger.error('List sync failed', { source: outcome.source, error: outcome.error });
  else logger.info('List synced', outcome);
};

/** Scheduled every 5 minutes: a new snapshot per changed list; fails (for alarms) if any list could not be synced. */
export const createHandler =
  ({ feeds, store, read }: { feeds: ListFeed[]; store: SnapshotStore; read: ListReader }) =>
  async () => {
    const outcomes = await syncLists(feeds, store, { read, now: () => new Date() });
    outcomes.forEach(report);
    publishListSync(outcomes, Date.now());
    const failed = outcomes.filter((outcome) => outcome.outcome === 'failed').map((outcome) => outcome.source);
    if (failed.length > 0) throw new Error(`List sync failed for ${failed.join(', ')}`);
    return outcomes;
  };

export const handler = workerHandler(
  createHandler({
    feeds: parseFeeds(config.listUrls),
    store: runtime.listSnapshots(),
    read: runtime.listReader(),
  }),
);
