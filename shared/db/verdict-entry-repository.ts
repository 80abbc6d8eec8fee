import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { VerdictEntryStore } from '../domain/lookups/search.ts';
import { timeOf } from '../domain/verdict-feed/index.ts';
import { key } from './keys.ts';
import { entryCounts } from './verdict-log.ts';

/**
 * One check-index entry as the verdict feeds publish it: its counters and when its last change
 * was stamped (the `changedAt` the changelog answers), read from the table, never cached.
 */
export const verdictEntryRepository = (db: DynamoDBDocumentClient, TableName: string): VerdictEntryStore => ({
  async find(checkKey) {
    const { Item } = await db.send(
      new GetCommand({
        TableName,
        Key: key.checkEntry(checkKey),
        ProjectionExpression: '#allow, #block, #watch, #lastChange',
        ExpressionAttributeNames: {
          '#allow': 'allow',
          '#block': 'block',
          '#watch': 'watch',
          '#lastChange': 'lastChange',
        },
      }),
    );
    if (Item === undefined || typeof Item.lastChange !== 'string') return undefined;
    return { ...entryCounts(Item), changedAt: new Date(timeOf(Item.lastChange)).toISOString() };
  },
});
