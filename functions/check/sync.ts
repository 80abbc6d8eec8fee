import { type ListSync, type SyncOutcome, syncFailure, syncLists } from '../../shared/domain/check/index.ts';
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
  ({ feeds, store, read, suffixes }: ListSync) =>
  async () => {
    const outcomes = await syncLists(feeds, store, { read, now: () => new Date(), suffixes });
    outcomes.forEach(report);
    publishListSync(outcomes, Date.now());
    const failure = syncFailure(outcomes);
    if (failure !== undefined) throw failure;
    return outcomes;
  };

export const handler = workerHandler(createHandler(runtime.listSync()));
