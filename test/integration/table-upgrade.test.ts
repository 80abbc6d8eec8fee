import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { ensureTable, localClient } from '../../infra/local/dynamo.ts';
import { createTableInput, TABLE_DEFINITION } from '../../infra/table-definition.ts';

describe('the local table kept in .data/ from an earlier version', () => {
  it('gets the indexes of the definition it lacks, and keeps the ones it has', async () => {
    const endpoint = inject('dynamoEndpoint');
    const client = localClient(endpoint);
    const tableName = `upgrade-${randomUUID()}`;
    const older = createTableInput(tableName);
    older.GlobalSecondaryIndexes = older.GlobalSecondaryIndexes?.filter(
      (index) => !['verdictsByMonth', 'checkEntries'].includes(index.IndexName ?? ''),
    );
    older.AttributeDefinitions = older.AttributeDefinitions?.filter(
      (attribute) => !['exportPK', 'lastChange', 'checkIdxPK'].includes(attribute.AttributeName ?? ''),
    );
    await client.send(new CreateTableCommand(older));

    await ensureTable(endpoint, tableName);

    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = (Table?.GlobalSecondaryIndexes ?? []).map((index) => `${index.IndexName}:${index.IndexStatus}`);
    expect(indexes.sort()).toEqual(TABLE_DEFINITION.indexes.map((index) => `${index.name}:ACTIVE`).sort());
    client.destroy();
  });
});
