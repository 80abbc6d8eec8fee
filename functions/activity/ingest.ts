import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { config } from '../../shared/config.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { type ApplyResult, applyActivity, parseActivityChange } from '../../shared/domain/activity.ts';
import { logger } from '../../shared/logger.ts';

const store = activityRepository(documentClient, config.tableName);

const ingest = async (record: SQSRecord): Promise<ApplyResult> =>
  applyActivity(store, parseActivityChange(JSON.parse(record.body)));

/**
 * One activity change per message. Changes are idempotent and ordered by `updatedAt`, so the
 * batch is applied concurrently and a retried message is harmless; only the messages that
 * failed are reported, and SQS redelivers just those (then moves them to the DLQ).
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const outcomes = await Promise.allSettled(event.Records.map(ingest));
  const counts = { applied: 0, ignored: 0, failed: 0 };
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  outcomes.forEach((outcome, index) => {
    const { messageId } = event.Records[index] as SQSRecord;
    if (outcome.status === 'fulfilled') {
      counts[outcome.value]++;
      return;
    }
    counts.failed++;
    batchItemFailures.push({ itemIdentifier: messageId });
    logger.error('Activity change not applied', { messageId, error: outcome.reason });
  });
  logger.info('Activity batch ingested', { received: event.Records.length, ...counts });
  return { batchItemFailures };
};
