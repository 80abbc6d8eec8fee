import type { Context } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { eventGenerator, type GeneratorDeps } from '../../shared/webhooks/generator.ts';
import { requeueOpenDeliveries } from '../../shared/webhooks/local-queue.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/** The pause between two reads of the verdict log: a change reaches the queue within about this long. */
const POLL_MS = 1000;
/** Stops polling this long before the function's timeout, so the last poll and its writes finish. */
const RESERVE_MS = 10_000;

type Deps = GeneratorDeps & {
  enqueue: ReturnType<typeof runtime.webhookQueue>;
  open: Parameters<typeof requeueOpenDeliveries>[1];
};

/**
 * Scheduled every minute (one at a time): reads the verdict log about once a second until the
 * minute is nearly over (and the feed of new detections with it), recording the events' delivery
 * records and queuing them; first it queues again the deliveries left unfinished (a worker that
 * stopped mid-attempt).
 */
export const createHandler = (deps: Deps) => {
  const generator = eventGenerator(deps, deps.enqueue);
  return async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const requeued = await requeueOpenDeliveries(deps.hooks, deps.open, deps.enqueue);
    let changes = 0;
    let events = 0;
    while (context.getRemainingTimeInMillis() > RESERVE_MS) {
      const polled = await generator.poll();
      changes += polled.changes;
      events += polled.events;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    logger.info('Webhook events generated', { changes, events, requeued });
    return { changes, events, requeued };
  };
};

const store = runtime.webhooks();
export const handler = workerHandler(
  createHandler({
    hooks: store,
    deliveries: store,
    open: store,
    log: runtime.webhookChangeLog(),
    records: runtime.webhookAssetRecords(),
    now: runtime.now,
    enqueue: runtime.webhookQueue(),
  }),
);
