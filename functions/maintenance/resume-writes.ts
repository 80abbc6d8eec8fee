import type { Context } from 'aws-lambda';
import {
  type InterruptedWriteStores,
  resumeInterruptedWrites,
} from '../../shared/domain/maintenance/interrupted-writes.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/** Left for the runtime to record the outcome before the function's own timeout. */
const MARGIN_MS = 5000;

/** Scheduled every minute: resumes the interrupted writes until the run's time is nearly spent. */
export const createHandler =
  ({ now, ...stores }: InterruptedWriteStores & { now: () => number }) =>
  async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const deadline = now() + context.getRemainingTimeInMillis() - MARGIN_MS;
    const outcome = await resumeInterruptedWrites(stores, now, deadline);
    const { abandonedReports, bulkAdds, finished, unfinished } = outcome;
    if (abandonedReports + bulkAdds.published + bulkAdds.undone + finished + unfinished > 0)
      logger.info('Interrupted writes resumed', outcome);
    return outcome;
  };

export const handler = workerHandler(
  createHandler({
    groups: runtime.groups(),
    reports: runtime.activity(),
    assets: runtime.assets(),
    suffixes: runtime.suffixes(),
    now: runtime.now,
  }),
);
