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

export const createHandler = ({ keys, directory, ...deps }: Deps) =>
  apiHandler(
    { request, keys, ...http.taxiiRoute('read') },
    async ({ auth, headers, pathParameters, queryStringParameters }) => {
      const name = await taxii.findCollection(deps.store, auth.orgId, pathParameters.collectionId);
      const caller = await taxii.callerOf(directory, auth.orgId, auth.scopes);
      const query = http.objectQueryOf(queryStringParameters);
      const page = await taxii.readPage(
        deps,
        { ...caller, keyHash: http.keyDigestOf(headers) },
        taxii.readable(name),
        query,
      );
      return http.taxiiJson(200, taxii.envelopeOf(page), taxii.dateAddedHeaders(page));
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  store: runtime.taxii(),
  cursors: runtime.cursors(),
  directory: runtime.directory(),
});
