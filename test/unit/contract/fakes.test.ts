import { keyResolverContract } from '../../contract/key-resolver.contract.ts';
import { storesContract } from '../../contract/stores.contract.ts';
import { fakeKeys, inMemoryStores } from '../../fixtures/fakes.ts';

/** The in-memory fakes the unit tests use, held to the contract the DynamoDB repositories meet (test/integration/contract-repositories.test.ts). */
storesContract(async () => {
  const { groups, assets } = inMemoryStores();
  return { groups, assets, orgId: 'acme', otherOrgId: 'globex' };
});

keyResolverContract(async (records) => fakeKeys(records));
