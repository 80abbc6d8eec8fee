import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface DeadLetterStore {
  /** Keeps a message that can never be processed, with why, for an operator to inspect. */
  put(message: { id: string; body: string }, reason: string): Promise<void>;
}

/** The activity feed's dead-letter queue: the original body, with the source message id and the reason as attributes. */
export const deadLetterQueue = (sqs: SQSClient, queueUrl: string): DeadLetterStore => ({
  async put(message, reason) {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: message.body,
        MessageAttributes: {
          sourceMessageId: { DataType: 'String', StringValue: message.id },
          reason: { DataType: 'String', StringValue: reason.slice(0, 1024) },
        },
      }),
    );
  },
});
