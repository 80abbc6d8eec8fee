import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import type { CursorCodec } from '../../shared/domain/core/cursor.ts';
import * as taxii from '../../shared/domain/taxii/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import * as http from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { pathParameters: http.collectionPath, queryStringParameters: http.objectsQuery };
type Deps = {
  keys: KeyResolver;
  store: taxii.TaxiiStore;
  cursors: CursorCodec;
  directory: Pick<DirectoryStore, 'findOrganization'>;
};

export const createHandler = ({ keys, ...deps }: Deps) =>
  apiHandler({ request, keys, ...http.taxiiRoute('read') }, async ({ auth, headers, pathParameters, ...event }) => {
    const key = { ...auth, keyHash: http.keyDigestOf(headers) };
    const query = http.objectQueryOf(event.queryStringParameters);
    const page = await taxii.readCollectionPage(deps, key, pathParameters.collectionId, query);
    return http.taxiiJson(200, taxii.manifestOf(page), taxii.dateAddedHeaders(page));
  });

export const handler = createHandler({
  keys: runtime.keys(),
  store: runtime.taxii(),
  cursors: runtime.cursors(),
  directory: runtime.directory(),
});
