import { config } from '../../shared/config.ts';
import { sqsClient } from '../../shared/db/sqs.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { attemptDelivery, type DeliveryDeps } from '../../shared/webhooks/dispatch.ts';
import { type DeliveryMessage, sqsEnqueue } from '../../shared/webhooks/queue.ts';
import { workerHandler } from '../../shared/worker-handler.ts';
import { jsonBody, sqsWorker } from '../../shared/workers.ts';

const parse = (body: string): DeliveryMessage | undefined => {
  const { hookId, sort } = (jsonBody(body) ?? {}) as Partial<DeliveryMessage>;
  return typeof hookId === 'string' && typeof sort === 'string' ? { hookId, sort } : undefined;
};
type Deps = DeliveryDeps & { retryLater: (message: DeliveryMessage, delayMs: number) => Promise<void> };

/**
 * The delivery queue's worker: one attempt per message, side by side (a silent receiver holds its own for at most the
 * send timeout). A retry is a new delayed message; one whose attempt failed to record goes back to the queue.
 */
export const createHandler = (deps: Deps) =>
  sqsWorker({
    parse,
    unreadable: 'Webhook delivery message not understood',
    handle: async (message) => {
      const outcome = await attemptDelivery(deps, message.hookId, message.sort);
      if (outcome.state === 'retry') await deps.retryLater(message, outcome.at - deps.now());
      // One line per finished delivery: the delivery-failure alarm counts them (infra/webhooks.ts).
      if (outcome.state !== 'skipped')
        for (const status of outcome.finished) logger.info('Webhook delivery finished', { outcome: status });
    },
    failed: (_message, { messageId }, error) => logger.warn('Webhook delivery not recorded', { messageId, error }),
  });

const queue = sqsEnqueue(sqsClient('webhook queue'), config.webhookQueueUrl ?? '');
export const handler = workerHandler(createHandler({ ...runtime.webhookDelivery(), retryLater: queue.enqueue }));
