import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { scanSegments } from './batch.ts';
import { DIRECTORY_ENTITY } from './directory-repository.ts';
import { ATTR, type Key, legacyDirectory } from './keys.ts';

/** Scanned side by side: the table is read once, in parallel parts. */
const SEGMENTS = 4;

export type DirectoryMove = { scanned: number; moved: number; alreadyMoved: number };

/**
 * Copies `item` to its key now, unless an item is there already (a run interrupted between its
 * copy and its delete, or the operator saved the organization again since the deploy: the one
 * there wins), then deletes it at its old key. True when this call made the copy.
 */
const moveItem = async (db: DynamoDBDocumentClient, table: string, item: Record<string, unknown>, keepOld: boolean) => {
  const old: Key = { PK: item[ATTR.pk] as string, SK: item[ATTR.sk] as string };
  let copied = true;
  try {
    await db.send(
      new PutCommand({
        TableName: table,
        Item: { ...item, ...legacyDirectory.relocated(old) },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': ATTR.pk },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    copied = false;
  }
  if (!keepOld) await db.send(new DeleteCommand({ TableName: table, Key: old }));
  return copied;
};

/**
 * Moves every organization and brand item of the old layout (`legacyDirectory`) to its own
 * partition: an operator's one-off after deploying the code that reads them there. It scans the
 * table for items of those entities still under the old prefix, so a second run finds none and
 * changes nothing, and a run stopped anywhere is finished by the next. `progress` hears of each
 * page read.
 */
export const moveDirectoryItems = async (
  db: DynamoDBDocumentClient,
  table: string,
  progress: (line: string) => void = () => undefined,
  /**
   * Copy only, leaving the old items where the running code reads them: run before deploying, so
   * that the new code finds every organization from its first request; the run after the deploy
   * then only deletes the old items.
   */
  { keepOld = false }: { keepOld?: boolean } = {},
): Promise<DirectoryMove> => {
  const totals: DirectoryMove = { scanned: 0, moved: 0, alreadyMoved: 0 };
  await scanSegments(
    db,
    {
      TableName: table,
      FilterExpression: '#entity IN (:organization, :brand) AND begins_with(#pk, :legacy)',
      ExpressionAttributeNames: { '#entity': 'entity', '#pk': ATTR.pk },
      ExpressionAttributeValues: {
        ':organization': DIRECTORY_ENTITY.organization,
        ':brand': DIRECTORY_ENTITY.brand,
        ':legacy': legacyDirectory.prefix,
      },
      ConsistentRead: true,
    },
    SEGMENTS,
    async (page, segment) => {
      totals.scanned += page.ScannedCount ?? 0;
      for (const item of page.Items ?? []) {
        if (await moveItem(db, table, item, keepOld)) totals.moved++;
        else totals.alreadyMoved++;
      }
      progress(
        `segment ${segment + 1}/${SEGMENTS}: ${page.ScannedCount ?? 0} items scanned, ${page.Items?.length ?? 0} moved` +
          ` (all segments: ${totals.scanned} scanned, ${totals.moved + totals.alreadyMoved} moved)`,
      );
    },
  );
  return totals;
};
