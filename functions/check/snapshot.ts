import { snapshotVerdicts } from '../../shared/domain/check/replica.ts';
import type { VerdictLog, VerdictSnapshotStore } from '../../shared/domain/check/verdicts.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';

type Deps = { log: VerdictLog; snapshots: VerdictSnapshotStore | undefined; now: () => number };

/**
 * Scheduled: the newest snapshot carried forward through the verdict log (or the index read
 * again, see nextSnapshot), saved for the replicas to start from.
 */
export const createHandler =
  ({ log, snapshots, now }: Deps) =>
  async () => {
    if (snapshots === undefined) {
      throw new Error('No verdict snapshot location is configured (VERDICTS_BUCKET or VERDICTS_DIR)');
    }
    const summary = await snapshotVerdicts(log, snapshots, now);
    logger.info('Verdict snapshot saved', summary);
    return summary;
  };

export const handler = createHandler({
  log: runtime.verdictLog(),
  snapshots: runtime.verdictSnapshots(),
  now: runtime.now,
});
