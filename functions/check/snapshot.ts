import { snapshotVerdicts } from '../../shared/domain/check/replica.ts';
import type { VerdictLog, VerdictSnapshotStore } from '../../shared/domain/check/verdicts.ts';
import { logger } from '../../shared/logger.ts';
import { publishSnapshotStored } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';
import { answerStackEvent, isStackEvent, putStackAnswer, type StackAnswer } from '../../shared/stack-event.ts';

type Deps = { log: VerdictLog; snapshots: VerdictSnapshotStore | undefined; now: () => number; answer: StackAnswer };

/**
 * Scheduled: the newest snapshot carried forward through the verdict log (or the index read
 * again, see nextSnapshot), saved for the replicas to start from. Also the custom resource that
 * takes the first snapshot when the stack is created (infra/verdict-snapshots.ts).
 */
export const createHandler = ({ log, snapshots, now, answer }: Deps) => {
  const snapshot = async () => {
    if (snapshots === undefined) {
      throw new Error('No verdict snapshot location is configured (VERDICTS_BUCKET or VERDICTS_DIR)');
    }
    const summary = await snapshotVerdicts(log, snapshots, now);
    publishSnapshotStored();
    logger.info('Verdict snapshot saved', summary);
    return summary;
  };
  return async (event: unknown) => (isStackEvent(event) ? answerStackEvent(event, snapshot, answer) : snapshot());
};

export const handler = createHandler({
  log: runtime.verdictLog(),
  snapshots: runtime.verdictSnapshots(),
  now: runtime.now,
  answer: putStackAnswer,
});
