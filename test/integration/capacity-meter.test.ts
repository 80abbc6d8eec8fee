import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { TABLE_DEFINITION } from '../../infra/table-definition.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { meter, queriedPartition, shapeOf, tagged, updatedImage, usage } from '../bench/capacity-meter.ts';
import { createTestTable } from '../fixtures/table.ts';

const definition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  indexes: [{ name: 'byOwner', partitionKey: 'ownerPK', sortKey: 'ownerSK' }],
};

describe('capacity meter', () => {
  it('gives partitions of one key shape one pattern, whatever their ids, numbers, dates and digests', () => {
    const orgs = ['acme-1', 'globex'];

    const shapes = [
      'METRICS#acme-1',
      'METRICS#globex',
      'VERDICTS#0001795254000000#3',
      'VERDICTS#0001795257600000#12',
      'CHECK#q0Yf1Qk3m4-_abcdefghijKLMNOPqrstu12345678',
      'CHECK#Zz9_abcdefghijKLMNOPqrstu12345678q0Yf1Qk3m4-',
      'ORG#acme-1#DAY#2026-11-26',
    ].map((partition) => shapeOf(partition, orgs));

    expect(shapes).toEqual([
      'METRICS#<org>',
      'METRICS#<org>',
      'VERDICTS#<n>#<n>',
      'VERDICTS#<n>#<n>',
      'CHECK#<id>',
      'CHECK#<id>',
      'ORG#<org>#DAY#<date>',
    ]);
  });

  it('finds the new image of an update from its SET and REMOVE clauses', () => {
    const image = updatedImage(
      { PK: 'A', SK: 'B', ownerPK: 'OLD', ownerSK: '1', count: 2 },
      {
        Key: { PK: 'A', SK: 'B' },
        UpdateExpression: 'SET #owner = :owner, #count = #count + :one REMOVE #sort',
        ExpressionAttributeNames: { '#owner': 'ownerPK', '#count': 'count', '#sort': 'ownerSK' },
        ExpressionAttributeValues: { ':owner': 'NEW', ':one': 1 },
      },
    );

    expect(image).toEqual({ PK: 'A', SK: 'B', ownerPK: 'NEW', count: 2 });
  });

  it('reads the partition of an index query from its key condition', () => {
    const read = queriedPartition(definition, {
      IndexName: 'byOwner',
      KeyConditionExpression: '#sk > :after AND #pk = :pk',
      ExpressionAttributeNames: { '#pk': 'ownerPK', '#sk': 'ownerSK' },
      ExpressionAttributeValues: { ':pk': 'OWNER#7', ':after': 'x' },
    });

    expect(read).toEqual({ part: 'byOwner', partition: 'OWNER#7' });
  });

  it('charges a transactional item 2 WCU on its partition and 1 WCU in each index partition its old and new images are in', async () => {
    const { endpoint, tableName, db } = await createTestTable('capacity');
    const owner = TABLE_DEFINITION.indexes[0] as { name: string; partitionKey: string; sortKey: string };
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { PK: 'ITEM#1', SK: 'I', [owner.partitionKey]: 'OLD', [owner.sortKey]: 's' },
            },
          },
        ],
      }),
    );
    const client = createDocumentClient(endpoint);
    meter(client, db, tableName, TABLE_DEFINITION);

    await tagged.run({ scenario: 'unit' }, () =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: { PK: 'ITEM#1', SK: 'I' },
                UpdateExpression: 'SET #p = :p',
                ExpressionAttributeNames: { '#p': owner.partitionKey },
                ExpressionAttributeValues: { ':p': 'NEW' },
              },
            },
            { Put: { TableName: tableName, Item: { PK: 'ITEM#2', SK: 'I' } } },
          ],
        }),
      ),
    );

    const recorded = Object.fromEntries(
      [...(usage.get('unit') ?? [])].map(([id, { rcu, wcu }]) => [id.replace('\u0000', ' '), { rcu, wcu }]),
    );
    expect(recorded).toEqual({
      'table ITEM#1': { rcu: 0, wcu: 2 },
      'table ITEM#2': { rcu: 0, wcu: 2 },
      [`${owner.name} OLD`]: { rcu: 0, wcu: 1 },
      [`${owner.name} NEW`]: { rcu: 0, wcu: 1 },
    });
  });
});
