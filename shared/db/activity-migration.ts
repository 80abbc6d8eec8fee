import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { activityItem, toRecord } from './activity-repository.ts';

/** Scanned side by side: the table is read once, in parallel parts. */
const SEGMENTS = 4;

export type ActivityMigration = { scanned: number; rewritten: number; current: number; changedMeanwhile: number };

const canonical = (item: Record<string, unknown>): string =>
  JSON.stringify(Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b))));

/**
 * Rewrites every activity item (report, threat, takedown) stored by an earlier version into the
 * form this one writes: a takedown's status in the published names (FILED is TODO, FAILED is
 * CANCELLED) and the listings' sort keys by the number each record answers as (a record keyed by
 * text sorted after the numbers before). Counters and the check index are not touched: neither
 * change moves them. Each rewrite is a Put conditioned on the `updatedAt` it read, so a record a
 * writer changed meanwhile (and so wrote in the current form) is left as that writer left it. An
 * item already current is not written, so a second run writes nothing and a run stopped anywhere
 * is finished by the next. `progress` hears of each page read.
 */
export const migrateActivityItems = async (
  db: DynamoDBDocumentClient,
  table: string,
  progress: (line: string) => void = () => undefined,
): Promise<ActivityMigration> => {
  const totals: ActivityMigration = { scanned: 0, rewritten: 0, current: 0, changedMeanwhile: 0 };
  await Promise.all(
    Array.from({ length: SEGMENTS }, async (_, segment) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new ScanCommand({
            TableName: table,
            Segment: segment,
            TotalSegments: SEGMENTS,
            FilterExpression: '#entity = :activity',
            ExpressionAttributeNames: { '#entity': 'entity' },
            ExpressionAttributeValues: { ':activity': 'ACTIVITY' },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        totals.scanned += page.ScannedCount ?? 0;
        for (const item of page.Items ?? []) {
          const next = activityItem(toRecord(item));
          if (canonical(next) === canonical(item)) {
            totals.current++;
            continue;
          }
          try {
            await db.send(
              new PutCommand({
                TableName: table,
                Item: next,
                ConditionExpression: '#updatedAt = :seen',
                ExpressionAttributeNames: { '#updatedAt': 'updatedAt' },
                ExpressionAttributeValues: { ':seen': item.updatedAt },
              }),
            );
            totals.rewritten++;
          } catch (error) {
            if (!(error instanceof ConditionalCheckFailedException)) throw error;
            totals.changedMeanwhile++;
          }
        }
        progress(
          `activity segment ${segment + 1}/${SEGMENTS}: ${page.Items?.length ?? 0} records read` +
            ` (all segments: ${totals.rewritten} rewritten, ${totals.current} already current)`,
        );
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }),
  );
  return totals;
};
