import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { lazyClient, underFailurePolicy } from './client.ts';

/**
 * The SQS client of one queue, under the failure policy of client.ts and built by its first
 * command. `dependency` names the queue in the 503's message; `endpoint` is a loopback server in tests.
 */
export const sqsClient = (dependency: string, endpoint?: string): SQSClient =>
  lazyClient(() =>
    underFailurePolicy(
      dependency,
      (transport) => new SQSClient({ ...transport, ...(endpoint === undefined ? {} : { endpoint }) }),
    ),
  );

/** SQS takes 10 messages a batch call. */
const BATCH = 10;

/** Messages (their bodies) sent with SendMessageBatch, ten a call; `what` names them in the error of a partial failure. */
export const sqsMessages = (sqs: SQSClient, queueUrl: string, what: string) => ({
  /** `id`: letters, digits, `-` and `_` only, unique in the call; a failure names the ids not queued. */
  async send(messages: readonly { id: string; body: string }[]) {
    for (let start = 0; start < messages.length; start += BATCH) {
      const { Failed = [] } = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.slice(start, start + BATCH).map(({ id, body }) => ({ Id: id, MessageBody: body })),
        }),
      );
      if (Failed.length > 0) {
        throw new Error(`${what} not queued: ${Failed.map((entry) => entry.Id).join(', ')}`);
      }
    }
  },
});
