import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Lease } from '../domain/verdict-feed/index.ts';
import { conditionFailed } from './items.ts';
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
): Lease => {
  /** Updates the lease on a condition; true when the condition did not hold. */
  const refused = (UpdateExpression: string, ConditionExpression: string, values: Record<string, number>) =>
    conditionFailed(
      db.send(
        new UpdateCommand({
          TableName,
          Key: key.lease(name),
          UpdateExpression,
          ConditionExpression,
          ExpressionAttributeNames: { '#owner': 'owner', '#until': 'heldUntil' },
          ExpressionAttributeValues: { ':owner': owner, ...values },
        }),
      ),
    );
  return {
    async hold(now) {
      return !(await refused(
        'SET #owner = :owner, #until = :until',
        'attribute_not_exists(#owner) OR #owner = :owner OR #until < :now',
        { ':until': now + leaseMs, ':now': now },
      ));
    },
    async release() {
      await refused('SET #until = :zero', '#owner = :owner', { ':zero': 0 });
    },
  };
};
