import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type ActivityStore, applyMessages } from '../../shared/domain/activity.ts';
import { logger } from '../../shared/logger.ts';
import { runtime } from '../../shared/runtime.ts';

/**
 * One activity change per message. Only the messages that failed are reported, and SQS
 * redelivers just those (then moves them to the DLQ).
 */
export const createHandler =
  ({ store }: { store: ActivityStore }) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const messages = event.Records.map((record) => ({ id: record.messageId, body: record.body }));
    const { counts, failures } = await applyMessages(store, messages);
    for (const { id, reason } of failures)
      logger.error('Activity change not applied', { messageId: id, error: reason });
    logger.info('Activity batch ingested', { received: messages.length, ...counts });
    return { batchItemFailures: failures.map(({ id }) => ({ itemIdentifier: id })) };
  };

export const handler = createHandler({ store: runtime.activity() });
