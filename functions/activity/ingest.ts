import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { DeadLetterStore } from '../../shared/db/dead-letter-queue.ts';
import { type ActivityStore, applyMessage } from '../../shared/domain/lifecycle/activity.ts';
import { logger } from '../../shared/logger.ts';
import { publishIngestion } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

const describe = (reason: unknown): string => (reason instanceof Error ? reason.message : String(reason));

/**
 * One activity change per message, the messages of a batch side by side. Only the messages that
 * failed are reported, and SQS redelivers just those (then moves them to the DLQ after 5
 * receives); a message that can never apply (not JSON, not a valid change) goes to the DLQ at
 * once, or is reported like a failure when that does not succeed.
 */
export const createHandler =
  ({ store, deadLetters }: { store: ActivityStore; deadLetters: DeadLetterStore }) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const counts = { applied: 0, ignored: 0, failed: 0, rejected: 0 };
    const ingest = async ({ messageId: id, body }: SQSRecord): Promise<void> => {
      try {
        const outcome = await applyMessage(store, body);
        if (typeof outcome === 'string') {
          counts[outcome]++;
          return;
        }
        await deadLetters.put({ id, body }, describe(outcome.rejected));
        logger.warn('Activity change rejected', { messageId: id, reason: describe(outcome.rejected) });
        counts.rejected++;
      } catch (error) {
        logger.error('Activity change not applied', { messageId: id, error });
        counts.failed++;
        throw error;
      }
    };
    // A processor per batch: its state is the batch's. A batch that fails whole is answered like
    // any other, every message listed, rather than thrown.
    const response = await processPartialResponse(event, ingest, new BatchProcessor(EventType.SQS), {
      throwOnFullBatchFailure: false,
    });
    logger.info('Activity batch ingested', { received: event.Records.length, ...counts });
    publishIngestion(counts);
    return response;
  };

export const handler = workerHandler(
  createHandler({
    store: runtime.activity(),
    // Built on first use: only a rejected message needs the queue.
    deadLetters: { put: (message, reason) => runtime.deadLetters().put(message, reason) },
  }),
);
