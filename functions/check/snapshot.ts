import { putStackAnswer, type StackAnswer, scheduledOrStackEvent } from '../../shared/db/adapters/stack-event.ts';
import { type ArtifactStore, publishBlocklistSnapshot } from '../../shared/domain/blocklist/blocklist.ts';
import { type SnapshotJob, storeVerdictSnapshot } from '../../shared/domain/verdict-feed/index.ts';
import { logger } from '../../shared/logger.ts';
import { publishSnapshotStored } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/** `artifacts`: where the blocklist's snapshot artifact goes, built from each new verdict snapshot. */
type Deps = SnapshotJob & { artifacts?: ArtifactStore; answer: StackAnswer };

/**
 * Scheduled: the next verdict snapshot (see nextSnapshot), saved for the replicas to start from,
 * and the blocklist's built from it. Also the custom resource that takes the first snapshot when
 * the stack is created (infra/verdict-snapshots.ts).
 */
export const createHandler = ({ artifacts, answer, ...job }: Deps) =>
  scheduledOrStackEvent(async (budgetMs) => {
    const { summary, stored } = await storeVerdictSnapshot(job, budgetMs);
    publishSnapshotStored();
    logger.info('Verdict snapshot saved', summary);
    if (artifacts !== undefined) {
      const { token, count, bytes } = await publishBlocklistSnapshot(artifacts, stored);
      logger.info('Blocklist snapshot published', { token, count, bytes });
    }
    return summary;
  }, answer);

export const handler = workerHandler(createHandler({ ...runtime.snapshotJob(), answer: putStackAnswer }));
