import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStore, Scope } from '../domain/api-keys.ts';
import { key } from './keys.ts';

type KeyItem = { kind: 'organization' | 'user'; orgId?: string; userId?: string; scopes?: Scope[]; revoked?: boolean };

const toRecord = (item: KeyItem): ApiKeyRecord | undefined => {
  const scopes = item.scopes ?? ['read', 'write'];
  const revoked = item.revoked === true;
  if (item.kind === 'organization' && item.orgId) return { kind: 'organization', orgId: item.orgId, scopes, revoked };
  if (item.kind === 'user' && item.userId) return { kind: 'user', userId: item.userId, scopes, revoked };
  return undefined;
};

/** Runs a conditional write; false when its condition did not hold. */
const conditionHeld = async (write: Promise<unknown>): Promise<boolean> => {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};

export const apiKeyRepository = (db: DynamoDBDocumentClient, TableName: string): ApiKeyStore => ({
  async findByHash(hash) {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.apiKey(hash) }));
    return Item ? toRecord(Item as KeyItem) : undefined;
  },

  put(hash, record) {
    const Item = { ...key.apiKey(hash), entity: 'API_KEY', ...record, createdAt: new Date().toISOString() };
    return conditionHeld(db.send(new PutCommand({ TableName, Item, ConditionExpression: 'attribute_not_exists(PK)' })));
  },

  revoke(hash) {
    return conditionHeld(
      db.send(
        new UpdateCommand({
          TableName,
          Key: key.apiKey(hash),
          UpdateExpression: 'SET revoked = :yes, revokedAt = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':yes': true, ':now': new Date().toISOString() },
        }),
      ),
    );
  },
});
