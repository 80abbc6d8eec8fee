import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ScanQueue } from '../domain/intake/scans.ts';

/** SQS takes 10 messages a batch call. */
const BATCH = 10;

/** One message per scan, its id as the body; the worker reads them in batches. */
export const sqsScanQueue = (sqs: SQSClient, queueUrl: string): ScanQueue => ({
  async send(scanIds) {
    for (let start = 0; start < scanIds.length; start += BATCH) {
      const entries = scanIds.slice(start, start + BATCH).map((id) => ({ Id: String(id), MessageBody: String(id) }));
      const { Failed = [] } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      if (Failed.length > 0) throw new Error(`Scans not queued: ${Failed.map((entry) => entry.Id).join(', ')}`);
    }
  },
});

/**
 * The queue of the local runtime: the worker runs in the same process once the request has
 * answered (`setImmediate`), so a submission never waits for its scans. `run` reports its own
 * failures; a scan it could not finish stays PENDING, as one whose SQS message ran out of retries.
 */
export const inProcessScanQueue = (run: (scanIds: readonly number[]) => Promise<void>): ScanQueue => ({
  async send(scanIds) {
    setImmediate(() => {
      void run(scanIds);
    });
  },
});
