import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { assetRecordsReader, changeLogReader, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer, rememberingSealer, type SecretSealer } from '../../shared/db/webhook-secrets.ts';
import { type EgressPolicy, keepAliveAgents, type Resolver, systemResolver } from '../../shared/egress/index.ts';
import { cachedHooks } from '../../shared/webhooks/dispatch.ts';
import { eventGenerator } from '../../shared/webhooks/generator.ts';
import {
  type Dispatcher,
  localDeliveryQueue,
  requeueOpenDeliveries,
  startLocalDispatcher,
} from '../../shared/webhooks/local-queue.ts';
import { useInProcessQueue } from '../../shared/webhooks/queue.ts';
import { sendWebhook } from '../../shared/webhooks/sender.ts';

export type LocalWebhookOptions = {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** The local key that seals the signing secrets (the routes must use the same one). */
  sealer?: SecretSealer;
  keyFile?: string;
  policy?: EgressPolicy;
  resolve?: Resolver;
  backoffBaseMs?: number;
  timeoutMs?: number;
  pollMs?: number;
  recoverEveryMs?: number;
  /** Tells the worker of each send (before it records the outcome). */
  onSent?: (hookId: string) => void;
  onError?: (error: unknown) => void;
};

/** How long a delivery worker keeps a webhook it read (a disabled one stops getting deliveries within it). */
const HOOK_CACHE_MS = 1000;
/** How often the local runtime reads the verdict log: deliveries start within a second of a change. */
export const LOCAL_POLL_MS = 200;

/**
 * The webhook workers of the local runtime, in-process: the event generator over the verdict
 * log and the delivery queue, as the scheduled function and the queue's worker run in AWS, over
 * the same domain code. Routes served by this process queue their test events into it.
 */
export const startLocalWebhooks = (options: LocalWebhookOptions): Dispatcher => {
  const store = webhookRepository(options.db, options.tableName);
  const sealer = options.sealer ?? localSealer(options.keyFile ?? '.data/webhook-secrets.key');
  const timeoutMs = options.timeoutMs ?? 5000;
  const policy = options.policy ?? { allowLoopback: true };
  const resolve = options.resolve ?? systemResolver;
  const agents = keepAliveAgents();
  const onError = options.onError ?? ((error: unknown) => console.error(`Webhooks: ${String(error)}`));
  const deliveryDeps = {
    hooks: cachedHooks(store, HOOK_CACHE_MS),
    deliveries: store,
    sealer: rememberingSealer(sealer),
    send: (url: string, body: string, headers: Record<string, string>) =>
      sendWebhook(url, body, headers, { policy, resolve, timeoutMs, agents }),
    now: Date.now,
    backoffBaseMs: options.backoffBaseMs ?? 30_000,
    leaseMs: 2 * timeoutMs + 1000,
    sendBudgetMs: timeoutMs,
  };
  const queue = localDeliveryQueue(deliveryDeps, {
    onError,
    ...(options.onSent ? { onSent: options.onSent } : {}),
  });
  useInProcessQueue(queue.enqueue);
  const generator = eventGenerator(
    {
      hooks: store,
      deliveries: store,
      log: changeLogReader(options.db, options.tableName),
      records: assetRecordsReader(options.db, options.tableName),
      now: Date.now,
    },
    queue.enqueue,
  );
  const dispatcher = startLocalDispatcher(generator, queue, () => requeueOpenDeliveries(store, store, queue.enqueue), {
    pollMs: options.pollMs ?? LOCAL_POLL_MS,
    recoverEveryMs: options.recoverEveryMs ?? 5000,
    onError,
  });
  return {
    queue,
    async stop() {
      useInProcessQueue(undefined);
      await dispatcher.stop();
    },
  };
};
