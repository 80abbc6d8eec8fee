import { describe, expect, it } from 'vitest';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { hashApiKey } from '../../shared/domain/api-keys.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('api-keys');
const keys = apiKeyRepository(table.db, table.tableName);
const record = { kind: 'organization' as const, orgId: 'acme', scopes: ['read' as const], revoked: false };

describe('the API key store on DynamoDB Local', () => {
  it('stores a key once: storing the same hash again reports false and changes nothing', async () => {
    const hash = hashApiKey('key-stored-once');

    const first = await keys.put(hash, record);
    const again = await keys.put(hash, { ...record, orgId: 'globex' });

    expect([first, again]).toEqual([true, false]);
    expect(await keys.findByHash(hash)).toEqual(record);
  });

  it('revokes a stored key, and reports false for a hash it does not hold', async () => {
    const hash = hashApiKey('key-to-revoke');
    await keys.put(hash, record);

    const revoked = await keys.revoke(hash);
    const unknown = await keys.revoke(hashApiKey('never-stored'));

    expect([revoked, unknown]).toEqual([true, false]);
    expect(await keys.findByHash(hash)).toEqual({ ...record, revoked: true });
    expect(await keys.findByHash(hashApiKey('never-stored'))).toBeUndefined();
  });
});
