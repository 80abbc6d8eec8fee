import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Enqueue } from './dispatch.ts';

/** What a queue message names: one delivery of one webhook. */
export type DeliveryMessage = { hookId: string; sort: string };

let inProcess: Enqueue | undefined;
/** The local runtime registers its in-process queue here; routes then queue into it. */
export const useInProcessQueue = (enqueue: Enqueue | undefined): void => {
  inProcess = enqueue;
};
/** Queues into the in-process queue when one runs; otherwise the next sweep of unfinished deliveries finds it. */
export const inProcessEnqueue: Enqueue = (delivery) => inProcess?.(delivery);

/** SQS delays a message by at most 15 minutes. */
const MAX_DELAY_S = 900;

export const sqsEnqueue = (sqs: SQSClient, queueUrl: string) => {
  const enqueue = async (message: DeliveryMessage, delayMs = 0) => {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify({ hookId: message.hookId, sort: message.sort }),
        DelaySeconds: Math.min(MAX_DELAY_S, Math.ceil(delayMs / 1000)),
      }),
    );
  };
  return { enqueue };
};
