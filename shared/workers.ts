import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from './logger.ts';

/**
 * A queue worker's answer to one batch: each message handled on its own (side by side, or one at a
 * time), and only the messages whose handling threw are reported, so SQS retries just those and
 * moves them to the dead-letter queue after their last attempt. A body `parse` cannot read is
 * logged with `unreadable` and dropped: no retry would read it either. A processor per batch: its
 * state is the batch's; a batch that fails whole is answered like any other, every message listed.
 */
export const sqsWorker =
  <M>(spec: {
    parse: (body: string) => M | undefined;
    unreadable: string;
    handle: (message: M, record: SQSRecord) => Promise<void>;
    /** Logs a message whose handling threw, before it is reported back. */
    failed: (message: M, record: SQSRecord, error: unknown) => void;
    oneAtATime?: boolean;
  }) =>
  (event: SQSEvent): Promise<SQSBatchResponse> => {
    const one = async (record: SQSRecord): Promise<void> => {
      const message = spec.parse(record.body);
      if (message === undefined) {
        logger.error(spec.unreadable, { messageId: record.messageId });
        return;
      }
      try {
        await spec.handle(message, record);
      } catch (error) {
        spec.failed(message, record, error);
        throw error;
      }
    };
    return processPartialResponse(event, one, new BatchProcessor(EventType.SQS), {
      processInParallel: spec.oneAtATime !== true,
      throwOnFullBatchFailure: false,
    });
  };

/** The JSON value of a message body, or undefined when it is not JSON. */
export const jsonBody = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

/**
 * A scheduled worker's polling: `poll` again and again, `pauseMs` apart, while more than
 * `reserveMs` of the invocation remain; what each poll answered, in order.
 */
export const pollWhileTimeRemains = async <T>(
  poll: () => Promise<T>,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  pauseMs: number,
  reserveMs: number,
): Promise<T[]> => {
  const polls: T[] = [];
  while (context.getRemainingTimeInMillis() > reserveMs) {
    polls.push(await poll());
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return polls;
};
