import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Scan, ScanStore } from '../domain/intake/scans.ts';
import { attributesOf, conditionFailed } from './items.ts';
import { key } from './keys.ts';
import { BATCH_WRITE_ITEMS } from './limits.ts';

const MAX_UNPROCESSED_ROUNDS = 8;

/** Scans, each its own item by id, and the marks of the reports scans filed. */
export const scanRepository = (db: DynamoDBDocumentClient, TableName: string): ScanStore => ({
  async create(scans) {
    for (let start = 0; start < scans.length; start += BATCH_WRITE_ITEMS) {
      let requests: Record<string, unknown>[] | undefined = scans
        .slice(start, start + BATCH_WRITE_ITEMS)
        .map((scan) => ({
          PutRequest: { Item: { ...key.scan(scan.id), entity: 'SCAN', ...scan } },
        }));
      for (let round = 0; requests && requests.length > 0; round++) {
        if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error('Scans could not be written: the table kept throttling');
        const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [TableName]: requests } }));
        requests = UnprocessedItems?.[TableName] as Record<string, unknown>[] | undefined;
      }
    }
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
