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
 * Messages (their bodies) sent as SQS's JSON protocol over a signed HTTPS request (see
 * aws-request.ts), ten a call: the routes that queue work carry no SQS client.
 */
export const sqsMessages = (
  queueUrl: string,
  { dependency, what }: { dependency: string; what: string },
  target?: AwsTarget,
) => {
  const send = awsService({ dependency, signingName: 'sqs', uriEscapePath: true, errorCode }, target);
  return {
    /** `id`: letters, digits, `-` and `_` only, unique in the call; a failure names the ids not queued. */
    async send(messages: readonly { id: string; body: string }[]) {
      for (let start = 0; start < messages.length; start += BATCH) {
        const entries = messages.slice(start, start + BATCH).map(({ id, body }) => ({ Id: id, MessageBody: body }));
        const answer = await send({
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessageBatch' },
          body: Buffer.from(JSON.stringify({ QueueUrl: queueUrl, Entries: entries })),
        });
        const { Failed = [] } = JSON.parse(Buffer.from(answer.body).toString('utf8')) as { Failed?: { Id: string }[] };
        if (Failed.length > 0) {
          throw new Error(`${what} not queued: ${Failed.map((entry) => entry.Id).join(', ')}`);
        }
      }
    },
  };
};

/** One message per scan, its id as the body. */
export const sqsScanQueue = (queueUrl: string, target?: AwsTarget): ScanQueue => {
  const messages = sqsMessages(queueUrl, { dependency: 'scan queue', what: 'Scans' }, target);
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
