import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Lease } from '../domain/verdict-feed/index.ts';
import { key } from './keys.ts';

/**
 * A lease in the table: one item naming its holder and until when (epoch ms, the holder's clock)
 * it holds. `hold` takes it when it is free or run out, or renews it for its holder, in one
 * conditional write, so of two runners asking at once exactly one holds it.
 */
export const dynamoLease = (
  db: DynamoDBDocumentClient,
  TableName: string,
  { name, owner, leaseMs }: { name: string; owner: string; leaseMs: number },
): Lease => ({
  async hold(now) {
    try {
      await db.send(
        new UpdateCommand({
          TableName,
          Key: key.lease(name),
          UpdateExpression: 'SET #owner = :owner, #until = :until',
          ConditionExpression: 'attribute_not_exists(#owner) OR #owner = :owner OR #until < :now',
          ExpressionAttributeNames: { '#owner': 'owner', '#until': 'heldUntil' },
          ExpressionAttributeValues: { ':owner': owner, ':until': now + leaseMs, ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
  async release() {
    try {
      await db.send(
        new UpdateCommand({
          TableName,
          Key: key.lease(name),
          UpdateExpression: 'SET #until = :zero',
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner', '#until': 'heldUntil' },
          ExpressionAttributeValues: { ':owner': owner, ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },
});
