import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  ConditionsFailedError,
  changeWriter,
  claim,
  counter,
  record,
  refuse,
  retry,
  verdicts,
} from '../../shared/db/change-set.ts';
import { createTestTable } from '../fixtures/table.ts';

const { db, tableName } = await createTestTable('change-set');
const writer = changeWriter(db, tableName);
const keyOf = (PK: string) => ({ PK, SK: 'ITEM' });
const read = async (PK: string) =>
  (await db.send(new GetCommand({ TableName: tableName, Key: keyOf(PK), ConsistentRead: true }))).Item;
const failureOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (e) => e,
  );

describe('change-sets on DynamoDB Local', () => {
  it('answers the floor reason of a verdicts change that would take a check-index count below zero, and writes nothing', async () => {
    const outcome = await writer.commit(() => [
      claim(keyOf('beside-floor'), { holder: 'me' }),
      verdicts([{ checkKey: 'floor.example', block: -1 }], { onFloor: refuse('floor') }),
    ]);

    expect(outcome).toEqual({ committed: false, refused: 'floor', reasons: ['floor'] });
    expect(await read('beside-floor')).toBeUndefined();
  });

  it('answers the reason of the claim DynamoDB found taken, and writes none of the other changes', async () => {
    await db.send(new PutCommand({ TableName: tableName, Item: { ...keyOf('taken'), holder: 'other' } }));

    const outcome = await writer.commit(() => [
      claim(keyOf('fresh'), { holder: 'me' }),
      counter(keyOf('count'), { n: 1 }),
      claim(keyOf('taken'), { holder: 'me' }, refuse('nameTaken')),
    ]);

    expect(outcome).toEqual({ committed: false, refused: 'nameTaken', reasons: ['nameTaken'] });
    expect(await read('fresh')).toBeUndefined();
    expect(await read('count')).toBeUndefined();
    expect((await read('taken'))?.holder).toBe('other');
  });

  it('names the change whose condition had to hold when DynamoDB finds it false', async () => {
    const error = await failureOf(writer.commit(() => [counter(keyOf('empty'), { n: -1 })]));

    expect(error).toBeInstanceOf(ConditionsFailedError);
    expect((error as ConditionsFailedError).failed).toEqual([`counter empty ITEM`]);
    expect(await read('empty')).toBeUndefined();
  });

  it('rebuilds after a retryable condition failed and commits what the next build read', async () => {
    await db.send(new PutCommand({ TableName: tableName, Item: { ...keyOf('versioned'), version: 2 } }));
    const expected = [1, 2];
    const told: string[][] = [];

    await writer.commit((retried: ReadonlySet<'moved'>) => {
      told.push([...retried]);
      return [
        record(
          {
            Update: {
              Key: keyOf('versioned'),
              UpdateExpression: 'SET version = version + :one',
              ConditionExpression: 'version = :expected',
              ExpressionAttributeValues: { ':one': 1, ':expected': expected.shift() },
            },
          },
          retry('moved'),
        ),
      ];
    });

    expect(told).toEqual([[], ['moved']]);
    expect((await read('versioned'))?.version).toBe(3);
  });

  it('counts exactly under concurrent read-modify-write change-sets, rebuilding those whose read went stale', async () => {
    const writers = 10;
    const increment = (i: number) =>
      writer.commit(
        async () => {
          const version = ((await read('hot'))?.version as number | undefined) ?? 0;
          return [
            record(
              {
                Put: {
                  Item: { ...keyOf('hot'), version: version + 1 },
                  ConditionExpression: version === 0 ? 'attribute_not_exists(PK)' : 'version = :version',
                  ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
                },
              },
              retry('stale'),
            ),
            claim(keyOf(`own${i}`), { i }),
          ];
        },
        { maxAttempts: 100, budgetMs: 60_000 },
      );

    await Promise.all(Array.from({ length: writers }, (_, i) => increment(i)));

    expect((await read('hot'))?.version).toBe(writers);
  });

  it('writes a sequence of parts in order and stops at the refused one, leaving the parts before it written', async () => {
    await db.send(new PutCommand({ TableName: tableName, Item: keyOf('unit-130') }));

    const { outcome, written } = await writer.commitInParts(150, (start, end) =>
      Array.from({ length: end - start }, (_, i) => claim(keyOf(`unit-${start + i}`), {}, refuse('exists'))),
    );

    expect(outcome).toMatchObject({ committed: false, refused: 'exists' });
    expect(written).toBe(100);
    expect(await read('unit-99')).toBeDefined();
    expect(await read('unit-100')).toBeUndefined();
    expect(await read('unit-149')).toBeUndefined();
  });
});
