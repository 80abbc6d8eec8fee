import { describe, expect, it } from 'vitest';
import { type ApiKeyRecord, hashApiKey, type KeyResolver } from '../../shared/domain/account/api-keys.ts';

/** A resolver that knows `records`, by plaintext key, and no other key. */
export type MakeResolver = (records: Record<string, ApiKeyRecord>) => Promise<KeyResolver>;

/** What request authentication relies on from a `KeyResolver`, whatever holds the keys. */
export const keyResolverContract = (make: MakeResolver) => {
  describe('KeyResolver', () => {
    const organization: ApiKeyRecord = { kind: 'organization', orgId: 'acme', scopes: ['read'], revoked: false };
    const user: ApiKeyRecord = { kind: 'user', userId: 'u-7', scopes: ['read', 'write'], revoked: false };

    it('resolves a known key to its record and the digest it is stored under', async () => {
      const resolve = await make({ 'contract-org-key': organization, 'contract-user-key': user });

      const found = [await resolve('contract-org-key'), await resolve('contract-user-key')];

      expect(found).toEqual([
        { ...organization, hash: hashApiKey('contract-org-key') },
        { ...user, hash: hashApiKey('contract-user-key') },
      ]);
    });

    it('resolves a revoked key as revoked rather than unknown', async () => {
      const resolve = await make({ 'contract-revoked-key': { ...organization, revoked: true } });

      expect(await resolve('contract-revoked-key')).toMatchObject({ revoked: true, orgId: 'acme' });
    });

    it('resolves an unknown key, and a known key spelled in another case, to nothing', async () => {
      const resolve = await make({ 'contract-known-key': organization });

      expect([await resolve('contract-unknown-key'), await resolve('CONTRACT-KNOWN-KEY')]).toEqual([
        undefined,
        undefined,
      ]);
    });
  });
};
