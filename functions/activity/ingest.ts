import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DeadLetterStore } from '../../shared/db/dead-letter-queue.ts';
import { type ActivityStore, applyMessages } from '../../shared/domain/activity.ts';
import { logger } from '../../shared/logger.ts';
import { publishIngestion } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

const describe = (reason: unknown): string => (reason instanceof Error ? reason.message : String(reason));

/**
 * One activity change per message. Only the messages that failed are reported, and SQS
 * redelivers just those (then moves them to the DLQ after 5 receives); a message that can never
 * apply (not JSON, not a valid change) goes to the DLQ at once, or is reported like a failure
 * when that does not succeed.
 */
export const createHandler =
  ({ store, deadLetters }: { store: ActivityStore; deadLetters: DeadLetterStore }) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const messages = event.Records.map((record) => ({ id: record.messageId, body: record.body }));
    const { counts, failures, rejected } = await applyMessages(store, messages);
    const moved = await Promise.allSettled(
      rejected.map((message) => deadLetters.put(message, describe(message.reason))),
    );
    moved.forEach((outcome, index) => {
      const { id, reason } = rejected[index] as (typeof rejected)[number];
      if (outcome.status === 'fulfilled') {
        logger.warn('Activity change rejected', { messageId: id, reason: describe(reason) });
        return;
      }
      failures.push({ id, reason: outcome.reason });
      counts.rejected--;
      counts.failed++;
    });
    for (const { id, reason } of failures)
      logger.error('Activity change not applied', { messageId: id, error: reason });
    logger.info('Activity batch ingested', { received: messages.length, ...counts });
    publishIngestion(counts);
    return { batchItemFailures: failures.map(({ id }) => ({ itemIdentifier: id })) };
  };

export const handler = workerHandler(
  createHandler({
    store: runtime.activity(),
    // Built on first use: only a rejected message needs the queue.
    deadLetters: { put: (message, reason) => runtime.deadLetters().put(message, reason) },
  }),
);
