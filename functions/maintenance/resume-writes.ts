import type { Context } from 'aws-lambda';
import { type AssetStore, finishBulkAdds } from '../../shared/domain/allowlist/assets.ts';
import type { GroupStore } from '../../shared/domain/allowlist/groups.ts';
import { rollBackAbandonedReports } from '../../shared/domain/lifecycle/reports.ts';
import type { LifecycleStore } from '../../shared/domain/lifecycle/store.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/** Left for the runtime to record the outcome before the function's own timeout. */
const MARGIN_MS = 5000;

type Deps = { groups: GroupStore; reports: LifecycleStore; assets: AssetStore; now: () => number };

/**
 * Scheduled every minute: finishes or undoes the multi-step writes their requests left unfinished.
 * It rolls back the reports abandoned between two of their transactions (a crash or a timeout; at
 * most 50 a run), publishes the bulk adds interrupted after their commit point and undoes those
 * abandoned before it, then goes on ungrouping the assets of every deleted group whose removal the
 * delete request did not finish (a large group, or an interrupted request) until the run's time is
 * nearly spent. Each step is exact on its own, so a run that is cut short loses nothing; the next
 * run continues.
 */
export const createHandler =
  ({ groups, reports, assets, now }: Deps) =>
  async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const deadline = now() + context.getRemainingTimeInMillis() - MARGIN_MS;
    const abandonedReports = await rollBackAbandonedReports(reports, new Date(now()).toISOString());
    const bulkAdds = await finishBulkAdds(assets, now(), deadline);
    const removals = await groups.resumeRemovals(deadline);
    const outcome = { abandonedReports, bulkAdds, ...removals };
    if (abandonedReports + bulkAdds.published + bulkAdds.undone + removals.finished + removals.unfinished > 0)
      logger.info('Interrupted writes resumed', outcome);
    return outcome;
  };

export const handler = workerHandler(
  createHandler({
    groups: runtime.groups(),
    reports: runtime.activity(),
    assets: runtime.assets(),
    now: runtime.now,
  }),
);
