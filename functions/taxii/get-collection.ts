import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { callerOf, collectionResource, findCollection, type TaxiiStore } from '../../shared/domain/taxii/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { collectionPath, taxiiJson, taxiiRoute } from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { pathParameters: collectionPath };
type Deps = { keys: KeyResolver; taxii: TaxiiStore; directory: Pick<DirectoryStore, 'findOrganization'> };

export const createHandler = ({ keys, taxii, directory }: Deps) =>
  apiHandler({ request, keys, ...taxiiRoute('read') }, async ({ auth, pathParameters }) => {
    const name = await findCollection(taxii, auth.orgId, pathParameters.collectionId);
    const caller = await callerOf(directory, auth.orgId, auth.scopes);
    return taxiiJson(200, collectionResource(name, pathParameters.collectionId, caller));
  });

export const handler = createHandler({ keys: runtime.keys(), taxii: runtime.taxii(), directory: runtime.directory() });
