import type { DeliveryStore, WebhookStore } from '../db/webhook-repository.ts';
import { type AttemptOutcome, attemptDelivery, type DeliveryDeps, type Enqueue } from './dispatch.ts';
import type { Generator } from './generator.ts';

type Lane = { queue: string[]; queued: Set<string>; running: boolean };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
/** After a failed store call (not a failed send), a lane waits this long before trying again. */
const STORE_RETRY_MS = 1000;
const RETRY_MARGIN_MS = 2;

export type LocalQueue = {
  enqueue: Enqueue;
  /** Resolves once every lane is empty. */
  idle(): Promise<void>;
  stop(): void;
};

/**
 * The in-process stand-in of the delivery queue: one lane per webhook, each attempting its
 * delivery records one at a time in the order they were queued (an event waiting for its retry
 * holds back the later ones of its webhook only), all lanes concurrently, so a slow or dead
 * receiver delays nobody else's deliveries, nor the generator, nor any request.
 */
export const localDeliveryQueue = (
  deps: DeliveryDeps,
  options: { onError?: (error: unknown) => void; onSent?: (hookId: string) => void } = {},
): LocalQueue => {
  const lanes = new Map<string, Lane>();
  let stopped = false;
  const waiting = new Set<() => void>();
  const checkIdle = () => {
    if ([...lanes.values()].some((lane) => lane.running || lane.queue.length > 0)) return;
    for (const done of waiting) done();
    waiting.clear();
  };

  const run = async (hookId: string, lane: Lane) => {
    lane.running = true;
    while (!stopped && lane.queue.length > 0) {
      const sort = lane.queue[0] as string;
      let outcome: AttemptOutcome;
      try {
        outcome = await attemptDelivery(deps, hookId, sort, () => options.onSent?.(hookId));
      } catch (error) {
        options.onError?.(error);
        await sleep(STORE_RETRY_MS);
        continue;
      }
      if (outcome.state === 'retry') {
        // A timer may fire a millisecond before the clock reaches its time: the claim would find the retry not due.
        await sleep(outcome.at - deps.now() + RETRY_MARGIN_MS);
        continue;
      }
      lane.queue.shift();
      lane.queued.delete(sort);
    }
    lane.running = false;
    checkIdle();
  };

  return {
    enqueue({ hookId, sort }) {
      if (stopped) return;
      const lane = lanes.get(hookId) ?? { queue: [], queued: new Set<string>(), running: false };
      lanes.set(hookId, lane);
      if (lane.queued.has(sort)) return;
      lane.queued.add(sort);
      lane.queue.push(sort);
      if (!lane.running) void run(hookId, lane);
    },
    idle: () =>
      new Promise<void>((resolve) => {
        waiting.add(resolve);
        checkIdle();
      }),
    stop() {
      stopped = true;
    },
  };
};

/**
 * Queues again every delivery not yet finished, oldest first per webhook: after a restart (the
 * in-process queue is gone) or a worker that died mid-attempt (its lease runs out, then the claim
 * succeeds). Queuing one that is already queued, or whose retry is not due, costs one refused claim.
 */
export const requeueOpenDeliveries = async (
  hooks: Pick<WebhookStore, 'listAll'>,
  deliveries: Pick<DeliveryStore, 'openDeliveries'>,
  enqueue: Enqueue,
): Promise<number> => {
  let queued = 0;
  for (const hook of await hooks.listAll()) {
    for (const sort of await deliveries.openDeliveries(hook.id)) {
      await enqueue({ hookId: hook.id, sort });
      queued++;
    }
  }
  return queued;
};

export type Dispatcher = { stop(): Promise<void>; queue: LocalQueue };

/**
 * The local runtime's webhook machinery: the generator polls the verdict log every `pollMs`, the
 * in-process queue delivers, and every `recoverEveryMs` unfinished deliveries are queued again.
 */
export const startLocalDispatcher = (
  generator: Generator,
  queue: LocalQueue,
  recovery: () => Promise<unknown>,
  { pollMs, recoverEveryMs, onError }: { pollMs: number; recoverEveryMs: number; onError: (error: unknown) => void },
): Dispatcher => {
  let stopped = false;
  let lastRecovery = 0;
  let recovering: Promise<void> | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        // Beside the polls, not between them: reading every webhook's unfinished records delays no change.
        if (recovering === undefined && Date.now() - lastRecovery >= recoverEveryMs) {
          lastRecovery = Date.now();
          recovering = recovery().then(
            () => {
              recovering = undefined;
            },
            (error: unknown) => {
              recovering = undefined;
              onError(error);
            },
          );
        }
        await generator.poll();
      } catch (error) {
        onError(error);
      }
      await sleep(pollMs);
    }
  })();
  return {
    queue,
    async stop() {
      stopped = true;
      queue.stop();
      await loop;
      await recovering;
    },
  };
};
