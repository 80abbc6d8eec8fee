import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { config } from '../../shared/config.ts';
import { sqsClient } from '../../shared/db/sqs.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { attemptDelivery, type DeliveryDeps } from '../../shared/webhooks/dispatch.ts';
import { type DeliveryMessage, sqsEnqueue } from '../../shared/webhooks/queue.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

type Deps = DeliveryDeps & { retryLater: (message: DeliveryMessage, delayMs: number) => Promise<void> };

const parse = (body: string): DeliveryMessage | undefined => {
  try {
    const message = JSON.parse(body) as Partial<DeliveryMessage>;
    return typeof message.hookId === 'string' && typeof message.sort === 'string'
      ? { hookId: message.hookId, sort: message.sort }
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The delivery queue's worker: one attempt per message, the messages of a batch side by side (a
 * receiver that does not answer holds its own message for at most the send timeout). A retry is
 * a new message delayed by its backoff; a message whose attempt failed to record is returned to
 * the queue (and after a few receives goes to the dead-letter queue, which an alarm watches).
 */
export const createHandler = (deps: Deps) => {
  const deliver = async (record: SQSRecord): Promise<void> => {
    const message = parse(record.body);
    if (message === undefined) {
      logger.error('Webhook delivery message not understood', { messageId: record.messageId });
      return;
    }
    try {
      const outcome = await attemptDelivery(deps, message.hookId, message.sort);
      if (outcome.state === 'retry') await deps.retryLater(message, outcome.at - deps.now());
      // One line per finished delivery: the delivery-failure alarm counts them (infra/webhooks.ts).
      if (outcome.state !== 'skipped') {
        for (const status of outcome.finished) logger.info('Webhook delivery finished', { outcome: status });
      }
    } catch (error) {
      logger.warn('Webhook delivery not recorded', { messageId: record.messageId, error });
      throw error;
    }
  };
  // A processor per batch: its state is the batch's. A batch that fails whole is answered like
  // any other, every message listed, rather than thrown.
  return (event: SQSEvent): Promise<SQSBatchResponse> =>
    processPartialResponse(event, deliver, new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure: false });
};

const queue = sqsEnqueue(sqsClient('webhook queue'), config.webhookQueueUrl ?? '');
export const handler = workerHandler(createHandler({ ...runtime.webhookDelivery(), retryLater: queue.enqueue }));
