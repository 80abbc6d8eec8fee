import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConditionsFailedError,
  failedConditions,
  type NamedItems,
  transactWithRetry,
} from '../../../shared/db/transactions.ts';
import { ServiceUnavailableError } from '../../../shared/errors.ts';
import { cancelled, mockDb } from '../../fixtures/mock-db.ts';

const ddb = mockDb();
const TABLE = 'tx-table';
const put = (id: string) => ({ Put: { TableName: TABLE, Item: { PK: id, SK: id } } });
const sent = () => ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems);
const failureOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (e) => e,
  );

beforeEach(() => {
  ddb.reset();
});

describe('transactWithRetry', () => {
  it('writes the named items in one transaction, leaving out undefined ones', async () => {
    ddb.on(TransactWriteCommand).resolves({});

    await transactWithRetry(ddb as never, () => ({ first: put('a'), skipped: undefined, second: put('b') }));

    expect(sent()).toEqual([[put('a'), put('b')]]);
  });

  it('sends nothing when no item is left', async () => {
    await transactWithRetry(ddb as never, () => ({ skipped: undefined }));

    expect(sent()).toEqual([]);
  });

  it('names the item whose condition failed, whatever its position after skipped items', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'ConditionalCheckFailed']));

    const error = await failureOf(
      transactWithRetry(ddb as never, () => ({ group: undefined, asset: put('a'), name: put('n') })),
    );

    expect(error).toBeInstanceOf(ConditionsFailedError);
    expect(failedConditions(error)).toEqual(new Set(['name']));
    expect(sent()).toHaveLength(1);
  });

  it('rebuilds and retries after a conflict with another transaction', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['TransactionConflict', 'None']))
      .resolves({});
    let builds = 0;

    await transactWithRetry(ddb as never, () => {
      builds++;
      return { a: put(`a${builds}`), b: put('b') };
    });

    expect(sent()).toEqual([
      [put('a1'), put('b')],
      [put('a2'), put('b')],
    ]);
  });

  it('retries a condition declared retryable and tells the next build every name that failed before', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['ConditionalCheckFailed', 'None']))
      .rejectsOnce(cancelled(['None', 'ConditionalCheckFailed']))
      .resolves({});
    const seen: string[][] = [];

    await transactWithRetry(
      ddb as never,
      (failedBefore) => {
        seen.push([...failedBefore]);
        return { version: put('v'), old: put('o') };
      },
      { retryOn: ['version', 'old'] },
    );

    expect(seen).toEqual([[], ['version'], ['version', 'old']]);
  });

  it('throws without retrying when a condition not declared retryable fails beside a retryable one', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed', 'ConditionalCheckFailed']));

    const error = await failureOf(
      transactWithRetry(ddb as never, () => ({ version: put('v'), name: put('n') }), { retryOn: ['version'] }),
    );

    expect(failedConditions(error)).toEqual(new Set(['version', 'name']));
    expect(sent()).toHaveLength(1);
  });

  it('answers 503 after maxAttempts when a retryable condition keeps failing', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed']));

    const error = await failureOf(
      transactWithRetry(ddb as never, () => ({ version: put('v') }), { retryOn: ['version'], maxAttempts: 3 }),
    );

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(sent()).toHaveLength(3);
  });

  it('answers 503, with the last conflict as its cause, once maxAttempts run out', async () => {
    const conflict = cancelled(['TransactionConflict']);
    ddb.on(TransactWriteCommand).rejects(conflict);

    const error = await failureOf(transactWithRetry(ddb as never, () => ({ a: put('a') }), { maxAttempts: 2 }));

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

      const outcome = failureOf(
        transactWithRetry(ddb as never, () => ({ a: put('a') }), { maxAttempts: 1000, budgetMs: 2500 }),
      ).then((error) => {
        givenUpAt = Date.now();
        return error;
      });
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

    const error = await failureOf(transactWithRetry(ddb as never, () => ({ a: put('a') })));

    expect(error).toBe(throttled);
    expect(failedConditions(error)).toEqual(new Set());
    expect(sent()).toHaveLength(1);
  });

  it('refuses a transaction of more than 100 items before sending it', async () => {
    const items: NamedItems = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`i${i}`, put(`${i}`)]));

    await expect(transactWithRetry(ddb as never, () => items)).rejects.toThrow(
      "A transaction of 101 items exceeds DynamoDB's limit of 100",
    );
    expect(sent()).toEqual([]);
  });
});
