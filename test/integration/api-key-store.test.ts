import { describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { hashApiKey } from '../../shared/domain/account/api-keys.ts';
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

  it("sets a key's own budget per class, keeping the budgets of its other classes", async () => {
    const hash = hashApiKey('key-with-limits');
    await keys.put(hash, record);

    await keys.setRateLimit(hash, 'check', { perSecond: 5, burst: 5 });
    await keys.setRateLimit(hash, 'report', { perSecond: 0.5, burst: 2 });
    await keys.setRateLimit(hash, 'check', { perSecond: 7, burst: 9 });
    const unknown = await keys.setRateLimit(hashApiKey('never-stored'), 'check', { perSecond: 1, burst: 1 });

    expect(unknown).toBe(false);
    expect(await keys.findByHash(hash)).toEqual({
      ...record,
      rateLimits: { check: { perSecond: 7, burst: 9 }, report: { perSecond: 0.5, burst: 2 } },
    });
  });

  it('sets a limit with `key limit` by the full key or by its digest, and refuses an unknown key or a bad budget', async () => {
    const plaintext = 'key-limited-by-admin-0123';
    await keys.put(hashApiKey(plaintext), record);
    const admin = (...words: string[]) => runAdminCommand(table.db, table.tableName, words, {});

    await admin('key', 'limit', plaintext, 'read', '3', '6');
    await admin('key', 'limit', hashApiKey(plaintext), 'write', '1', '2');

    expect((await keys.findByHash(hashApiKey(plaintext)))?.rateLimits).toEqual({
      read: { perSecond: 3, burst: 6 },
      write: { perSecond: 1, burst: 2 },
    });
    await expect(admin('key', 'limit', 'key-limited', 'read', '3', '6')).rejects.toThrow(/^No such key/);
    await expect(admin('key', 'limit', plaintext, 'admin', '3', '6')).rejects.toThrow(/^Route classes are/);
    await expect(admin('key', 'limit', plaintext, 'read', '0', '6')).rejects.toThrow(/^perSecond must be/);
    await expect(admin('key', 'limit', plaintext, 'read', '3', '1.5')).rejects.toThrow(/^perSecond must be/);
  });
});
