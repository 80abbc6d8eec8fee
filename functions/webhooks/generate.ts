import type { Context } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { eventGenerator, type GeneratorDeps } from '../../shared/webhooks/generator.ts';
import { requeueOpenDeliveries } from '../../shared/webhooks/local-queue.ts';
import { workerHandler } from '../../shared/worker-handler.ts';
import { pollWhileTimeRemains } from '../../shared/workers.ts';

/** Reads of the verdict log a second apart (a change reaches the queue within about that), until 10 s before the timeout. */
const POLL_MS = 1000;
const RESERVE_MS = 10_000;

type OpenDeliveries = Parameters<typeof requeueOpenDeliveries>[1];
type Deps = GeneratorDeps & { enqueue: ReturnType<typeof runtime.webhookQueue>; open: OpenDeliveries };

/**
 * Scheduled every minute (one at a time): first queues again the deliveries left unfinished (a worker that stopped
 * mid-attempt), then polls the verdict log and the feed of new detections, recording and queuing their events.
 */
export const createHandler = (deps: Deps) => {
  const generator = eventGenerator(deps, deps.enqueue);
  return async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const requeued = await requeueOpenDeliveries(deps.hooks, deps.open, deps.enqueue);
    const polls = await pollWhileTimeRemains(() => generator.poll(), context, POLL_MS, RESERVE_MS);
    const [changes, events] = polls.reduce(([c, e], polled) => [c + polled.changes, e + polled.events], [0, 0]);
    logger.info('Webhook events generated', { changes, events, requeued });
    return { changes, events, requeued };
  };
};

const store = runtime.webhooks();
const sources = { log: runtime.webhookChangeLog(), records: runtime.webhookAssetRecords(), now: runtime.now };
export const handler = workerHandler(
  createHandler({ hooks: store, deliveries: store, open: store, ...sources, enqueue: runtime.webhookQueue() }),
);
