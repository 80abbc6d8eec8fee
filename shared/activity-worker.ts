import type { DeadLetterStore } from './db/dead-letter-queue.ts';
import type { PublicSuffixes } from './domain/check/index.ts';
import { type ActivityStore, applyMessage } from './domain/lifecycle/activity.ts';
import { logger } from './logger.ts';
import { sqsWorker } from './workers.ts';

/** What became of a batch's activity messages. */
export type IngestCounts = { applied: number; ignored: number; failed: number; rejected: number };

const describe = (reason: unknown): string => (reason instanceof Error ? reason.message : String(reason));

/**
 * One activity change per message, side by side, counted into `counts`: a message that can never
 * apply (not JSON, not a valid change) goes to the dead-letter queue at once; one that failed is
 * reported back for SQS to redeliver, as is a rejected one whose dead-letter write failed.
 */
export const activityWorker = (
  { store, deadLetters, suffixes }: { store: ActivityStore; deadLetters: DeadLetterStore; suffixes: PublicSuffixes },
  counts: IngestCounts,
) =>
  sqsWorker({
    parse: (body) => body,
    unreadable: 'Activity message without a body',
    handle: async (body, { messageId }) => {
      const outcome = await applyMessage(suffixes, store, body);
      if (typeof outcome === 'string') {
        counts[outcome]++;
        return;
      }
      await deadLetters.put({ id: messageId, body }, describe(outcome.rejected));
      logger.warn('Activity change rejected', { messageId, reason: describe(outcome.rejected) });
      counts.rejected++;
    },
    failed: (_body, { messageId }, error) => {
      logger.error('Activity change not applied', { messageId, error });
      counts.failed++;
    },
  });
