import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { activityWorker } from '../../shared/activity-worker.ts';
import type { DeadLetterStore } from '../../shared/db/dead-letter-queue.ts';
import type { PublicSuffixes } from '../../shared/domain/check/index.ts';
import type { ActivityStore } from '../../shared/domain/lifecycle/activity.ts';
import { logger } from '../../shared/logger.ts';
import { publishIngestion } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/**
 * The activity queue's worker: only the messages that failed are reported, and SQS redelivers just
 * those (then moves them to the DLQ after 5 receives); each batch is logged and published as counts.
 */
export const createHandler =
  (deps: { store: ActivityStore; deadLetters: DeadLetterStore; suffixes: PublicSuffixes }) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const counts = { applied: 0, ignored: 0, failed: 0, rejected: 0 };
    const response = await activityWorker(deps, counts)(event);
    logger.info('Activity batch ingested', { received: event.Records.length, ...counts });
    publishIngestion(counts);
    return response;
  };

export const handler = workerHandler(
  createHandler({
    store: runtime.activity(),
    suffixes: runtime.suffixes(),
    // Built on first use: only a rejected message needs the queue.
    deadLetters: { put: (message, reason) => runtime.deadLetters().put(message, reason) },
  }),
);
