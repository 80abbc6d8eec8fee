import type { Context } from 'aws-lambda';
import type { GroupStore } from '../../shared/domain/groups.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';

/** Left for the runtime to record the outcome before the function's own timeout. */
const MARGIN_MS = 5000;

/**
 * Scheduled every minute: goes on ungrouping the assets of every deleted group whose removal the
 * delete request did not finish (a large group, or an interrupted request). Each step is exact
 * on its own, so a run that is cut short loses nothing; the next run continues.
 */
export const createHandler =
  ({ groups, now }: { groups: GroupStore; now: () => number }) =>
  async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const outcome = await groups.resumeRemovals(now() + context.getRemainingTimeInMillis() - MARGIN_MS);
    if (outcome.finished + outcome.unfinished > 0) logger.info('Group removals resumed', outcome);
    return outcome;
  };

export const handler = createHandler({ groups: runtime.groups(), now: runtime.now });
