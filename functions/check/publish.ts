import type { Context } from 'aws-lambda';
import { PUBLISHER_RUN, runPublisher, type VerdictPublisher } from '../../shared/domain/verdict-feed/index.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/**
 * Scheduled every minute with a timeout a little over it: publishes the verdict feed until its
 * time is nearly up, then lets the lease go. The runs overlap, and the lease keeps one publishing:
 * the next run waits in standby until this one stops, then takes over where its pointer is.
 */
export const createHandler =
  ({ publisher }: { publisher: () => VerdictPublisher }) =>
  async (_event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const budgetMs = context?.getRemainingTimeInMillis() ?? PUBLISHER_RUN.defaultBudgetMs;
    const run = runPublisher(publisher(), {
      until: Date.now() + budgetMs - PUBLISHER_RUN.stopMarginMs,
      onError: (error) => logger.warn('Verdict feed not published', { error }),
    });
    await run.done;
  };

export const handler = workerHandler(createHandler({ publisher: runtime.publisher }));
