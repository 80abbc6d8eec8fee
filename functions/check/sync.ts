import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../../shared/config.ts';
import { fileSnapshotStore, s3SnapshotStore } from '../../shared/db/list-snapshot-store.ts';
import { parseFeeds, type SyncOutcome, syncLists } from '../../shared/domain/check/sync.ts';
import { logger } from '../../shared/logger.ts';

const feeds = parseFeeds(config.listUrls);
const store = config.listsBucket
  ? s3SnapshotStore(new S3Client({}), config.listsBucket)
  : fileSnapshotStore(config.listsDir ?? 'infra/local/lists');

const report = (outcome: SyncOutcome) => {
  if (outcome.outcome === 'failed') logger.error('List sync failed', { source: outcome.source, error: outcome.error });
  else logger.info('List synced', outcome);
};

/** Scheduled every 5 minutes: a new snapshot per changed list; fails (for alarms) if any list could not be synced. */
export const handler = async () => {
  const outcomes = await syncLists(feeds, store);
  outcomes.forEach(report);
  const failed = outcomes.filter((outcome) => outcome.outcome === 'failed').map((outcome) => outcome.source);
  if (failed.length > 0) throw new Error(`List sync failed for ${failed.join(', ')}`);
  return outcomes;
};
