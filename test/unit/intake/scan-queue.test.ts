import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sqsScanQueue } from '../../../shared/db/scan-queue.ts';
import { sqsClient } from '../../../shared/db/sqs.ts';
import { jsonError, type LoopbackAws, loopbackAws, reply } from '../../fixtures/loopback-aws.ts';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/scans';
let sqs: LoopbackAws;

beforeAll(async () => {
  sqs = await loopbackAws();
});
afterAll(() => sqs.close());

describe('the scan queue over SQS', () => {
  beforeEach(() => {
    sqs.reset();
    sqs.otherwise(reply(200, JSON.stringify({ Successful: [], Failed: [] })));
  });
  const queue = () => sqsScanQueue(sqsClient('scan queue', sqs.endpoint), QUEUE_URL);

  it('sends one message per scan id, ten a batch, as SendMessageBatch of the JSON protocol', async () => {
    const ids = Array.from({ length: 23 }, (_, i) => 1000 + i);

    await queue().send(ids);

    expect(sqs.received.map((request) => request.headers['x-amz-target'])).toEqual([
      'AmazonSQS.SendMessageBatch',
      'AmazonSQS.SendMessageBatch',
      'AmazonSQS.SendMessageBatch',
    ]);
    const bodies = sqs.received.map((request) => JSON.parse(request.body.toString()));
    expect(bodies.map((body) => body.QueueUrl)).toEqual([QUEUE_URL, QUEUE_URL, QUEUE_URL]);
    expect(bodies.flatMap((body) => body.Entries)).toEqual(
      ids.map((id) => ({ Id: String(id), MessageBody: String(id) })),
    );
  });

  it('throws when SQS reports an entry it did not queue', async () => {
    sqs.answer(
      reply(200, JSON.stringify({ Successful: [], Failed: [{ Id: '7', Code: 'InternalError', SenderFault: false }] })),
    );

    await expect(queue().send([7])).rejects.toThrow('Scans not queued: 7');
  });

  it('throws when the queue does not exist', async () => {
    sqs.otherwise(jsonError(400, 'com.amazonaws.sqs#QueueDoesNotExist'));

    await expect(queue().send([7])).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });
});
