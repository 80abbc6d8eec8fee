import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ReportDirectory } from '../domain/lifecycle/report-page.ts';
import { toRecord } from './activity-repository.ts';
import { ACTIVITY_INDEX, reportPartition } from './keys.ts';

/** Reports by id alone, from their partition of the by-asset index (`activityIndexKeys`). */
export const reportDirectoryRepository = (db: DynamoDBDocumentClient, TableName: string): ReportDirectory => ({
  async reportsWithId(id) {
    const { name, partitionKey } = ACTIVITY_INDEX.byAsset;
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName,
        IndexName: name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': partitionKey },
        ExpressionAttributeValues: { ':pk': reportPartition(id) },
        // Two tell the page the id is ambiguous; it never needs more.
        Limit: 2,
      }),
    );
    return Items.map(toRecord);
  },
});
