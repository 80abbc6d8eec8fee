import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Scan, ScanStore } from '../domain/intake/scans.ts';
import { batchPutAll } from './batch.ts';
import { attributesOf, conditionFailed } from './items.ts';
import { key } from './keys.ts';

/** Scans, each its own item by id, and the marks of the reports scans filed. */
export const scanRepository = (db: DynamoDBDocumentClient, TableName: string): ScanStore => ({
  async create(scans) {
    await batchPutAll(
      db,
      TableName,
      scans.map((scan) => ({ ...key.scan(scan.id), entity: 'SCAN', ...scan })),
    );
  },

  async find(id) {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.scan(id), ConsistentRead: true }));
    return Item ? attributesOf<Scan>(Item) : undefined;
  },

  async complete(id, result, at) {
    const failed = await conditionFailed(
      db.send(
        new UpdateCommand({
          TableName,
          Key: key.scan(id),
          UpdateExpression: 'SET #status = :done, #result = :result, completedAt = :at',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status', '#result': 'result' },
          ExpressionAttributeValues: { ':done': 'COMPLETED', ':pending': 'PENDING', ':result': result, ':at': at },
        }),
      ),
    );
    return !failed;
  },

  async claimReport(orgId, checkKey, scanId) {
    const taken = await conditionFailed(
      db.send(
        new PutCommand({
          TableName,
          Item: { ...key.scanReport(orgId, checkKey), scanId },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
    return !taken;
  },

  async releaseReport(orgId, checkKey) {
    await db.send(new DeleteCommand({ TableName, Key: key.scanReport(orgId, checkKey) }));
  },
});
