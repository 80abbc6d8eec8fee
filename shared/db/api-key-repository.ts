import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStore, Scope } from '../domain/account/api-keys.ts';
import { keyRateLimits } from '../domain/account/rate-limits.ts';
import { conditionHeld, updateIf } from './items.ts';
import { key } from './keys.ts';

type KeyItem = {
  kind: 'organization' | 'user';
  orgId?: string;
  userId?: string;
  scopes?: Scope[];
  revoked?: boolean;
  rateLimits?: unknown;
};

const toRecord = (item: KeyItem): ApiKeyRecord | undefined => {
  const scopes = item.scopes ?? ['read', 'write'];
  const revoked = item.revoked === true;
  const rateLimits = keyRateLimits(item.rateLimits);
  const limits = rateLimits ? { rateLimits } : {};
  if (item.kind === 'organization' && item.orgId) {
    return { kind: 'organization', orgId: item.orgId, scopes, revoked, ...limits };
  }
  if (item.kind === 'user' && item.userId) return { kind: 'user', userId: item.userId, scopes, revoked, ...limits };
  return undefined;
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
    return updateIf(db, {
      TableName,
      Key: key.apiKey(hash),
      UpdateExpression: 'SET revoked = :yes, revokedAt = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':yes': true, ':now': new Date().toISOString() },
    });
  },

  async setRateLimit(hash, rateClass, budget) {
    // The map first (a no-op when it exists): one update cannot both create `rateLimits` and set a path in it.
    const exists = await updateIf(db, {
      TableName,
      Key: key.apiKey(hash),
      UpdateExpression: 'SET rateLimits = if_not_exists(rateLimits, :empty)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':empty': {} },
    });
    if (!exists) return false;
    await db.send(
      new UpdateCommand({
        TableName,
        Key: key.apiKey(hash),
        UpdateExpression: 'SET rateLimits.#class = :budget',
        ExpressionAttributeNames: { '#class': rateClass },
        ExpressionAttributeValues: { ':budget': { perSecond: budget.perSecond, burst: budget.burst } },
      }),
    );
    return true;
  },
});
