import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { failedConditions, transactWithRetry } from '../../shared/db/transactions.ts';
import { createTestTable } from '../fixtures/table.ts';

const { db, tableName } = await createTestTable('transactions');
const item = (PK: string, extra: Record<string, unknown> = {}) => ({ PK, SK: 'ITEM', ...extra });
const putNew = (PK: string) => ({
  Put: { TableName: tableName, Item: item(PK), ConditionExpression: 'attribute_not_exists(PK)' },
});
const failureOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (e) => e,
  );

describe('transactWithRetry on DynamoDB Local', () => {
  it('names the item whose condition DynamoDB found false, and writes none of the others', async () => {
    await db.send(new PutCommand({ TableName: tableName, Item: item('taken') }));

    const error = await failureOf(
      transactWithRetry(db, () => ({ fresh: putNew('fresh'), skipped: undefined, clash: putNew('taken') })),
    );

    expect(failedConditions(error)).toEqual(new Set(['clash']));
    expect(await failureOf(transactWithRetry(db, () => ({ fresh: putNew('fresh') })))).toBeUndefined();
  });

  it('rebuilds after a retryable condition failed and commits what the next build read', async () => {
    await db.send(new PutCommand({ TableName: tableName, Item: item('versioned', { version: 2 }) }));
    const expected = [1, 2];

    await transactWithRetry(
      db,
      () => ({
        bump: {
          Update: {
            TableName: tableName,
            Key: item('versioned'),
            UpdateExpression: 'SET version = version + :one',
            ConditionExpression: 'version = :expected',
            ExpressionAttributeValues: { ':one': 1, ':expected': expected.shift() },
          },
        },
      }),
      { retryOn: ['bump'] },
    );

    expect(expected).toEqual([]);
  });
});
