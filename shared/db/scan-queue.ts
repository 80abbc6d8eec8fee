import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ScanQueue } from '../domain/intake/scans.ts';
import { inProcessRunner } from './in-process.ts';
import { sqsMessages } from './sqs.ts';

/** One message per scan, its id as the body. */
export const sqsScanQueue = (sqs: SQSClient, queueUrl: string): ScanQueue => {
  const messages = sqsMessages(sqs, queueUrl, 'Scans');
  return { send: (scanIds) => messages.send(scanIds.map((id) => ({ id: String(id), body: String(id) }))) };
};

/** Scans handed to the in-process worker. */
const scans = inProcessRunner();

/**
 * The queue of the local runtime: the worker runs in the same process once the request has
 * answered, so a submission never waits for its scans. `run` reports its own failures; a scan it
 * could not finish stays PENDING, as one whose SQS message ran out of retries.
 */
export const inProcessScanQueue = (run: (scanIds: readonly number[]) => Promise<void>): ScanQueue => ({
  async send(scanIds) {
    scans.start(run, scanIds);
  },
});

/** Resolves once every scan handed to the in-process worker so far has finished (what a test waits for before reading the table). */
export const inProcessScansSettled = (): Promise<void> => scans.settled();
