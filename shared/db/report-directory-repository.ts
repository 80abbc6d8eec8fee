import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReportDirectory } from '../domain/lifecycle/report-page.ts';
import { reportPartition } from './keys.ts';
import { readByAsset } from './lifecycle-repository.ts';

/** Reports by id alone, from their partition of the by-asset index (`activityIndexKeys`). */
export const reportDirectoryRepository = (db: DynamoDBDocumentClient, TableName: string): ReportDirectory => ({
  // Two tell the page the id is ambiguous; it never needs more.
  reportsWithId: (id) => readByAsset(db, TableName, reportPartition(id), { limit: 2, newestFirst: false }),
});
