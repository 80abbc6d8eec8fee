import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
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

export const apiKeyRepository = (db: DynamoDBDocumentClient, table: string): ApiKeyStore => ({
  async findByHash(hash) {
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: key.apiKey(hash) }));
    return Item ? toRecord(Item as KeyItem) : undefined;
  },
});
