import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jsonBody, pollWhileTimeRemains, sqsWorker } from '../../shared/workers.ts';

const event = (...bodies: string[]): SQSEvent =>
  ({ Records: bodies.map((body, i) => ({ messageId: `m-${i}`, body })) }) as unknown as SQSEvent;

const numberOf = (body: string): number | undefined => (/^\d+$/.test(body) ? Number(body) : undefined);

describe('sqsWorker', () => {
  it('reports back only the messages whose handling threw, and drops a body it cannot read', async () => {
    const handled: number[] = [];
    const failed: number[] = [];
    const worker = sqsWorker({
      parse: numberOf,
      unreadable: 'not a number',
      handle: async (n) => {
        if (n === 2) throw new Error('boom');
        handled.push(n);
      },
      failed: (n) => failed.push(n),
    });

    const answer = await worker(event('1', 'one', '2', '3'));

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    expect(handled.sort()).toEqual([1, 3]);
    expect(failed).toEqual([2]);
  });

  it('starts a message only after the one before it finished when asked for one at a time', async () => {
    const steps: string[] = [];
    const worker = sqsWorker({
      parse: numberOf,
      unreadable: 'not a number',
      oneAtATime: true,
      handle: async (n) => {
        steps.push(`start ${n}`);
        await new Promise((resolve) => setImmediate(resolve));
        steps.push(`end ${n}`);
      },
      failed: () => undefined,
    });

    await worker(event('1', '2'));

    expect(steps).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
  });
});

describe('jsonBody', () => {
  it('answers the JSON value of a body, and undefined for a body that is not JSON', () => {
    expect([jsonBody('{"a":1}'), jsonBody('null'), jsonBody('{')]).toEqual([{ a: 1 }, null, undefined]);
  });
});

describe('pollWhileTimeRemains', () => {
  it('polls while more than the reserve remains, and answers each poll in order', async () => {
    let remaining = 5;
    let polls = 0;
    const context = { getRemainingTimeInMillis: () => remaining };

    const answers = await pollWhileTimeRemains(
      async () => {
        polls += 1;
        remaining -= 1;
        return polls;
      },
      context,
      0,
      2,
    );

    expect(answers).toEqual([1, 2, 3]);
  });
});
