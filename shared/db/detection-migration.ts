import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type DetectionConfig, listingOf } from '../domain/detections/index.ts';
import { scanPages } from './batch.ts';
import { attributesOf } from './items.ts';
import { key } from './keys.ts';

/**
 * Lists the enabled configs written before configs had listings (their schedule class or push
 * source), so the scheduler and the feeds find them. A listing already there is kept (the
 * scheduler may have moved its next time on), so a second run writes nothing.
 */
export const listDetectionConfigs = async (
  db: DynamoDBDocumentClient,
  TableName: string,
  now: number,
): Promise<{ configs: number; listed: number; alreadyListed: number }> => {
  const totals = { configs: 0, listed: 0, alreadyListed: 0 };
  for await (const page of scanPages(db, {
    TableName,
    FilterExpression: '#entity = :config',
    ExpressionAttributeNames: { '#entity': 'entity' },
    ExpressionAttributeValues: { ':config': 'DETECTION_CONFIG' },
    ConsistentRead: true,
  })) {
    for (const item of page.Items ?? []) {
      const config = attributesOf<DetectionConfig>(item);
      totals.configs++;
      const listing = listingOf(config, now);
      if (listing === undefined) continue;
      try {
        await db.send(
          new PutCommand({
            TableName,
            Item: {
              ...key.detectionListing(listing.slot, listing.orgId, listing.configId),
              entity: 'DETECTION_LISTING',
              ...listing,
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
        totals.listed++;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        totals.alreadyListed++;
      }
    }
  }
  return totals;
};
