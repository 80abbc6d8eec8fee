import type { ScanQueue } from '../domain/intake/scans.ts';
import { type AwsTarget, awsService } from './aws-request.ts';

/** SQS takes 10 messages a batch call. */
const BATCH = 10;

/** The error code of an SQS JSON-protocol answer (`__type`, e.g. `com.amazonaws.sqs#QueueDoesNotExist`). */
const errorCode = ({ body }: { body: Uint8Array }): string | undefined => {
  try {
    const type = (JSON.parse(Buffer.from(body).toString('utf8')) as { __type?: unknown }).__type;
    return typeof type === 'string' ? type.slice(type.lastIndexOf('#') + 1) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * One message per scan, its id as the body, sent as SQS's JSON protocol over a signed HTTPS
 * request (see aws-request.ts): the routes that start scans carry no SQS client.
 */
export const sqsScanQueue = (queueUrl: string, target?: AwsTarget): ScanQueue => {
  const send = awsService({ dependency: 'scan queue', signingName: 'sqs', uriEscapePath: true, errorCode }, target);
  return {
    async send(scanIds) {
      for (let start = 0; start < scanIds.length; start += BATCH) {
        const entries = scanIds.slice(start, start + BATCH).map((id) => ({ Id: String(id), MessageBody: String(id) }));
        const answer = await send({
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessageBatch' },
          body: Buffer.from(JSON.stringify({ QueueUrl: queueUrl, Entries: entries })),
        });
        const { Failed = [] } = JSON.parse(Buffer.from(answer.body).toString('utf8')) as { Failed?: { Id: string }[] };
        if (Failed.length > 0) throw new Error(`Scans not queued: ${Failed.map((entry) => entry.Id).join(', ')}`);
      }
    },
  };
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
