import { randomUUID } from 'node:crypto';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { cachedKeyResolver, hashApiKey } from '../../shared/domain/account/api-keys.ts';
import { keyResolverContract } from '../contract/key-resolver.contract.ts';
import { storesContract } from '../contract/stores.contract.ts';
import { createTestTable } from '../fixtures/table.ts';

/** The DynamoDB repositories, held to the contract the unit tests' fakes meet (test/unit/contract/fakes.test.ts). */
const table = await createTestTable('contract');

storesContract(async () => ({
  groups: assetGroupRepository(table.db, table.tableName),
  assets: assetRepository(table.db, table.tableName),
  orgId: `org-${randomUUID()}`,
  otherOrgId: `org-${randomUUID()}`,
}));

keyResolverContract(async (records) => {
  const keys = apiKeyRepository(table.db, table.tableName);
  for (const [key, record] of Object.entries(records)) await keys.put(hashApiKey(key), record);
  return cachedKeyResolver(keys);
});
