import type { Context } from 'aws-lambda';
import { type ArtifactStore, publishBlocklistSnapshot } from '../../shared/domain/blocklist/blocklist.ts';
import type { VerdictLog, VerdictSnapshotStore } from '../../shared/domain/verdict-feed/index.ts';
import { snapshotVerdicts } from '../../shared/domain/verdict-feed/index.ts';
import { logger } from '../../shared/logger.ts';
import { publishSnapshotStored } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';
import { answerStackEvent, isStackEvent, putStackAnswer, type StackAnswer } from './stack-event.ts';

type Deps = {
  log: VerdictLog;
  snapshots: VerdictSnapshotStore | undefined;
  /** Where the blocklist's snapshot artifact goes, built from each new verdict snapshot. */
  artifacts?: ArtifactStore;
  now: () => number;
  answer: StackAnswer;
};

/**
 * Scheduled: the newest snapshot compacted with the verdict log since (or the index read again
 * shard by shard over as many runs as it takes, see nextSnapshot), saved for the replicas to start
 * from. Also the custom resource that takes the first snapshot when the stack is created
 * (infra/verdict-snapshots.ts).
 */
export const createHandler = ({ log, snapshots, artifacts, now, answer }: Deps) => {
  const snapshot = async (budgetMs: number | undefined) => {
    if (snapshots === undefined) {
      throw new Error('No verdict snapshot location is configured (VERDICTS_BUCKET or VERDICTS_DIR)');
    }
    const summary = await snapshotVerdicts(log, snapshots, now, budgetMs);
    if (summary.position === undefined) {
      // Only a rebuild with no snapshot to carry: the next run goes on with it.
      throw new Error(`No verdict snapshot yet: ${String(summary.rebuilding)} index shards left to read`);
    }
    publishSnapshotStored();
    logger.info('Verdict snapshot saved', summary);
    const saved = artifacts === undefined ? undefined : await snapshots.latest();
    if (artifacts !== undefined && saved !== undefined) {
      const pointer = await publishBlocklistSnapshot(artifacts, saved);
      logger.info('Blocklist snapshot published', { token: pointer.token, count: pointer.count, bytes: pointer.bytes });
    }
    return summary;
  };
  return async (event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const budgetMs = context?.getRemainingTimeInMillis();
    return isStackEvent(event) ? answerStackEvent(event, () => snapshot(budgetMs), answer) : snapshot(budgetMs);
  };
};

export const handler = workerHandler(
  createHandler({
    log: runtime.verdictLog(),
    snapshots: runtime.verdictSnapshots(),
    artifacts: runtime.blocklistArtifacts(),
    now: runtime.now,
    answer: putStackAnswer,
  }),
);
