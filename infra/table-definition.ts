import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { ACTIVITY_INDEX, ATTR, CHECK_INDEX, EXPORT_INDEX, INDEX } from '../shared/db/keys.ts';

/** The one table, as data: the CDK stack and the local bootstrap both build from this. */
export const TABLE_DEFINITION = {
  partitionKey: ATTR.pk,
  sortKey: ATTR.sk,
  timeToLiveAttribute: ATTR.ttl,
  indexes: [
    ...Object.values(INDEX).map((index) => ({
      name: index.name,
      partitionKey: index.partitionKey,
      sortKey: ATTR.liveSort as string,
    })),
    ...[...Object.values(ACTIVITY_INDEX), EXPORT_INDEX, CHECK_INDEX].map(({ name, partitionKey, sortKey }) => ({
      name,
      partitionKey,
      sortKey,
    })),
  ],
};

export const createTableInput = (tableName: string): CreateTableCommandInput => {
  const attributes = new Set<string>([TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey]);
  for (const index of TABLE_DEFINITION.indexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE_DEFINITION.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
};
