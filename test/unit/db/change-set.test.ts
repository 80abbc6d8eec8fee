import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ChangeSet,
  ChangeSetTooLargeError,
  ConditionsFailedError,
  changeWriter,
  claim,
  counter,
  type PartPosition,
  packUnits,
  planParts,
  record,
  refuse,
  release,
  retry,
  sizeOf,
  verdicts,
} from '../../../shared/db/change-set.ts';
import { ServiceUnavailableError } from '../../../shared/errors.ts';
import { cancelled, mockDb } from '../../fixtures/mock-db.ts';

const ddb = mockDb();
const TABLE = 'tx-table';
const writer = changeWriter(ddb as never, TABLE);
const put = (id: string) => ({ Put: { Item: { PK: id, SK: id } } });
const sentPut = (id: string) => ({ Put: { TableName: TABLE, Item: { PK: id, SK: id } } });
const sent = () => ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems);
const failureOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (e) => e,
  );

beforeEach(() => {
  ddb.reset();
});

describe('changeWriter().commit', () => {
  it('writes every change of the set in one transaction, in the table it was made for', async () => {
    ddb.on(TransactWriteCommand).resolves({});

    const outcome = await writer.commit(() => [
      record(put('a')),
      claim({ PK: 'NAME#x', SK: 'NAME' }, { holder: 'a' }),
      release({ PK: 'NAME#y', SK: 'NAME' }),
    ]);

    expect(outcome).toEqual({ committed: true });
    expect(sent()).toEqual([
      [
        sentPut('a'),
        {
          Put: {
            TableName: TABLE,
            Item: { holder: 'a', PK: 'NAME#x', SK: 'NAME' },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        { Delete: { TableName: TABLE, Key: { PK: 'NAME#y', SK: 'NAME' } } },
      ],
    ]);
  });

  it('adds counters, requiring a decremented one to hold at least as much', async () => {
    ddb.on(TransactWriteCommand).resolves({});

    await writer.commit(() => [counter({ PK: 'DAY', SK: 'D1' }, { up: 2, down: -3 })]);

    expect(sent()).toEqual([
      [
        {
          Update: {
            TableName: TABLE,
            Key: { PK: 'DAY', SK: 'D1' },
            UpdateExpression: 'ADD #a0 :a0, #a1 :a1',
            ConditionExpression: '#a1 >= :f1',
            ExpressionAttributeNames: { '#a0': 'up', '#a1': 'down' },
            ExpressionAttributeValues: { ':a0': 2, ':a1': -3, ':f1': 3 },
          },
        },
      ],
    ]);
  });

  it('sends nothing for an empty set', async () => {
    expect(await writer.commit(() => [])).toEqual({ committed: true });

    expect(sent()).toEqual([]);
  });

  it('answers the reason a refused change declares, without retrying', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'ConditionalCheckFailed']));

    const outcome = await writer.commit(() => [record(put('a')), claim({ PK: 'N', SK: 'N' }, {}, refuse('nameTaken'))]);

    expect(outcome).toEqual({ committed: false, refused: 'nameTaken', reasons: ['nameTaken'] });
    expect(sent()).toHaveLength(1);
  });

  it('throws ConditionsFailedError naming the change whose condition had to hold', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'ConditionalCheckFailed']));

    const error = await failureOf(writer.commit(() => [record(put('a')), claim({ PK: 'N', SK: 'M' }, {})]));

    expect(error).toBeInstanceOf(ConditionsFailedError);
    expect((error as ConditionsFailedError).failed).toEqual(['claim N M']);
  });

  it('answers the refusal when a change whose condition had to hold failed beside it', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed', 'ConditionalCheckFailed']));

    const outcome = await writer.commit(() => [
      record(put('hook'), refuse('missing')),
      counter({ PK: 'COUNT', SK: 'C' }, { count: -1 }),
    ]);

    expect(outcome).toEqual({ committed: false, refused: 'missing', reasons: ['missing'] });
  });

  it('rebuilds and retries after a conflict with another transaction', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['TransactionConflict', 'None']))
      .resolves({});
    let builds = 0;

    await writer.commit(() => {
      builds++;
      return [record(put(`a${builds}`)), record(put('b'))];
    });

    expect(sent()).toEqual([
      [sentPut('a1'), sentPut('b')],
      [sentPut('a2'), sentPut('b')],
    ]);
  });

  it('retries a change declared retryable and tells the next build every tag that failed so far', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['ConditionalCheckFailed', 'None']))
      .rejectsOnce(cancelled(['None', 'ConditionalCheckFailed']))
      .resolves({});
    const seen: number[][] = [];

    await writer.commit((retried: ReadonlySet<number>) => {
      seen.push([...retried]);
      return [record(put('v'), retry(7)), record(put('o'), retry(9))];
    });

    expect(seen).toEqual([[], [7], [7, 9]]);
  });

  it('answers a refusal without retrying when it fails beside a retryable change', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed', 'ConditionalCheckFailed']));

    const outcome = await writer.commit(() => [record(put('v'), retry('moved')), record(put('n'), refuse('taken'))]);

    expect(outcome).toEqual({ committed: false, refused: 'taken', reasons: ['taken'] });
    expect(sent()).toHaveLength(1);
  });

  it('answers 503 after maxAttempts when a retryable change keeps failing', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed']));

    const error = await failureOf(writer.commit(() => [record(put('v'), retry('moved'))], { maxAttempts: 3 }));

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(sent()).toHaveLength(3);
  });

  it('answers 503, with the last conflict as its cause, once maxAttempts run out', async () => {
    const conflict = cancelled(['TransactionConflict']);
    ddb.on(TransactWriteCommand).rejects(conflict);

    const error = await failureOf(writer.commit(() => [record(put('a'))], { maxAttempts: 2 }));

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).cause).toBe(conflict);
    expect(sent()).toHaveLength(2);
  });

  describe('under a transaction that always conflicts', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('gives up with 503 before its time budget, starting no retry that would end after it', async () => {
      ddb.on(TransactWriteCommand).rejects(cancelled(['TransactionConflict']));
      const start = Date.now();
      let givenUpAt = 0;

      const outcome = failureOf(writer.commit(() => [record(put('a'))], { maxAttempts: 1000, budgetMs: 2500 })).then(
        (error) => {
          givenUpAt = Date.now();
          return error;
        },
      );
      await vi.advanceTimersByTimeAsync(10_000);

      expect(givenUpAt).toBeGreaterThan(0);
      expect(await outcome).toBeInstanceOf(ServiceUnavailableError);
      expect(givenUpAt - start).toBeLessThan(2500);
      expect(givenUpAt - start).toBeGreaterThan(1000);
      expect(sent().length).toBeGreaterThan(12);
    });
  });

  it('rethrows any other failure unchanged, without retrying', async () => {
    const throttled = new Error('ProvisionedThroughputExceededException');
    ddb.on(TransactWriteCommand).rejects(throttled);

    const error = await failureOf(writer.commit(() => [record(put('a'))]));

    expect(error).toBe(throttled);
    expect(sent()).toHaveLength(1);
  });

  it('refuses a set of more than 100 items before sending it', async () => {
    const set = Array.from({ length: 101 }, (_, i) => record(put(`${i}`)));

    const error = await failureOf(writer.commit(() => set));

    expect(error).toBeInstanceOf(ChangeSetTooLargeError);
    expect((error as Error).message).toBe("A change-set of 101 items exceeds DynamoDB's limit of 100 per transaction");
    expect(sent()).toEqual([]);
  });
});

describe('sizeOf', () => {
  it('counts two items per check-index entry a verdicts change moves, and none for deltas that cancel out', () => {
    const set = [
      verdicts([
        { checkKey: 'a', allow: 1 },
        { checkKey: 'a', block: 1 },
        { checkKey: 'b', allow: 1 },
        { checkKey: 'b', allow: -1 },
        { checkKey: 'c', watch: -1 },
      ]),
      record(put('r')),
    ];

    expect(sizeOf(set)).toBe(5);
  });
});

/** A report-like sequence: two items per unit, a record and its two counters in every part but a middle one. */
const reportPart = (start: number, end: number, position: PartPosition): ChangeSet<never, never> => [
  ...Array.from({ length: 2 * (end - start) }, (_, i) => record(put(`u${start}-${i}`))),
  ...(position === 'middle' ? [] : [record(put('report'))]),
  ...(position === 'whole' || position === 'last'
    ? [counter({ PK: 'D', SK: '1' }, { n: 1 }), counter({ PK: 'I', SK: '1' }, { n: 1 })]
    : []),
];

describe('planParts', () => {
  it('keeps a set that fits one transaction whole', () => {
    expect(planParts(48, reportPart)).toEqual([{ start: 0, end: 48, position: 'whole' }]);
  });

  it('cuts a larger one into a first, middle and last part, each as long as fits at any position', () => {
    expect(planParts(100, reportPart)).toEqual([
      { start: 0, end: 48, position: 'first' },
      { start: 48, end: 96, position: 'middle' },
      { start: 96, end: 100, position: 'last' },
    ]);
  });

  it('closes with the last unit alone when everything fits one part but not as a whole', () => {
    const part = (start: number, end: number, position: PartPosition) =>
      Array.from({ length: (end - start) * 40 + (position === 'whole' ? 30 : 0) }, (_, i) => record(put(`${i}`)));

    expect(planParts(2, part)).toEqual([
      { start: 0, end: 1, position: 'first' },
      { start: 1, end: 2, position: 'last' },
    ]);
  });

  it('cuts parts of units of different sizes by what each takes', () => {
    const sizes = [60, 30, 20, 90, 5];
    const part = (start: number, end: number) =>
      sizes.slice(start, end).flatMap((size, u) => Array.from({ length: size }, (_, i) => record(put(`${u}-${i}`))));

    expect(planParts(5, part).map(({ start, end }) => [start, end])).toEqual([
      [0, 2],
      [2, 3],
      [3, 5],
    ]);
  });

  it('refuses a unit that exceeds a transaction on its own', () => {
    const part = () => Array.from({ length: 101 }, (_, i) => record(put(`${i}`)));

    expect(() => planParts(3, part)).toThrow(ChangeSetTooLargeError);
  });
});

describe('packUnits', () => {
  it('cuts independent units into runs that each fit a transaction', () => {
    const part = (start: number, end: number) =>
      Array.from({ length: 2 * (end - start) + 1 }, (_, i) => record(put(`${start}-${i}`)));

    expect(packUnits(120, part)).toEqual([
      { start: 0, end: 49 },
      { start: 49, end: 98 },
      { start: 98, end: 120 },
    ]);
  });
});

describe('changeWriter().commitInParts', () => {
  it('commits the parts in order and stops at the first refused, telling how many units the others wrote', async () => {
    ddb
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejectsOnce(cancelled(['ConditionalCheckFailed']))
      .resolves({});

    const { outcome, written } = await writer.commitInParts(100, (start, end, position) => [
      record(put(`${position}-${start}`), refuse('stale')),
      ...reportPart(start, end, position).slice(1),
    ]);

    expect(outcome).toEqual({ committed: false, refused: 'stale', reasons: ['stale'] });
    expect(written).toBe(48);
    expect(sent()).toHaveLength(2);
  });
});
