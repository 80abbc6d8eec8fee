import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import * as taxii from '../../shared/domain/taxii/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import * as http from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { pathParameters: http.objectPath, queryStringParameters: http.objectsQuery };
type Deps = { keys: KeyResolver; store: taxii.TaxiiStore; directory: Pick<DirectoryStore, 'findOrganization'> };

export const createHandler = ({ keys, directory, store }: Deps) =>
  apiHandler({ request, keys, ...http.taxiiRoute('read') }, async ({ auth, pathParameters }) => {
    const name = await taxii.findCollection(store, auth.orgId, pathParameters.collectionId);
    const caller = await taxii.callerOf(directory, auth.orgId, auth.scopes);
    const all = await taxii.objectVersions(store, caller, taxii.readable(name), pathParameters.objectId);
    return http.taxiiJson(
      200,
      { more: false, versions: all.map((one) => one.version) },
      taxii.dateAddedHeaders({ more: false, served: all }),
    );
  });

export const handler = createHandler({ keys: runtime.keys(), store: runtime.taxii(), directory: runtime.directory() });
