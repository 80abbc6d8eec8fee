import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { recordNumber } from '../domain/core/ids.ts';
import type { FindingStore, OpenItem } from '../domain/insights/healthchecks.ts';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import { toRecord } from './activity-repository.ts';
import { ACTIVITY_INDEX, listPartition } from './keys.ts';

/**
 * The oldest offenders of the age healthchecks, each one Query of at most `limit` items of a sparse
 * index partition, ascending by `createdAt`, below the cut-off: reports with a pending proposal
 * (every one holds at least one, so `limit` reports hold at least `limit` proposals) and IN_PROGRESS
 * takedowns. Never a Scan; the cost is the same whatever the organization holds.
 */
export const healthcheckFindingsRepository = (db: DynamoDBDocumentClient, table: string): FindingStore => {
  const oldest = async (index: 'list2' | 'list3', partition: string, before: string, limit: number) => {
    const { name, partitionKey, sortKey } = ACTIVITY_INDEX[index];
    const page = await db.send(
      new QueryCommand({
        TableName: table,
        IndexName: name,
        KeyConditionExpression: '#pk = :pk AND #sk < :before',
        ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
        ExpressionAttributeValues: { ':pk': partition, ':before': before },
        ScanIndexForward: true,
        Limit: limit,
      }),
    );
    return (page.Items ?? []).map(toRecord);
  };
  const pendingOf = (record: ActivityRecord): OpenItem[] =>
    record.kind === 'report'
      ? (record.proposals ?? [])
          .filter((proposal) => proposal.reviewStatus === 'PENDING')
          .map((proposal) => ({ id: proposal.id, createdAt: record.createdAt }))
      : [];
  return {
    async pendingProposals(orgId, before, limit) {
      const reports = await oldest('list2', listPartition(orgId, 'REPORTS', '#PENDING'), before, limit);
      return reports.flatMap(pendingOf).slice(0, limit);
    },
    async inProgressTakedowns(orgId, before, limit) {
      const takedowns = await oldest('list3', listPartition(orgId, 'TAKEDOWNS', '#IN_PROGRESS'), before, limit);
      return takedowns.map((record) => ({
        id: recordNumber(record.kind, record.organization, record.id),
        createdAt: record.createdAt,
      }));
    },
  };
};
