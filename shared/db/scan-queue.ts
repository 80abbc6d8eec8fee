import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ScanQueue } from '../domain/intake/scans.ts';
import { sqsMessages } from './sqs.ts';

/** One message per scan, its id as the body. */
export const sqsScanQueue = (sqs: SQSClient, queueUrl: string): ScanQueue => {
  const messages = sqsMessages(sqs, queueUrl, 'Scans');
  return { send: (scanIds) => messages.send(scanIds.map((id) => ({ id: String(id), body: String(id) }))) };
};

/** Scans handed to the in-process worker and not finished yet. */
const running = new Set<Promise<void>>();

/**
 * The queue of the local runtime: the worker runs in the same process once the request has
 * answered (`setImmediate`), so a submission never waits for its scans. `run` reports its own
 * failures; a scan it could not finish stays PENDING, as one whose SQS message ran out of retries.
 */
export const inProcessScanQueue = (run: (scanIds: readonly number[]) => Promise<void>): ScanQueue => ({
  async send(scanIds) {
    const done = new Promise<void>((resolve) => {
      setImmediate(() => {
        run(scanIds).finally(resolve);
      });
    });
    running.add(done);
    void done.finally(() => running.delete(done));
  },
});

/** Resolves once every scan handed to the in-process worker so far has finished (what a test waits for before reading the table). */
export const inProcessScansSettled = async (): Promise<void> => {
  while (running.size > 0) await Promise.all(running);
};
