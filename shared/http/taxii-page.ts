import type { KeyResolver } from '../domain/account/api-keys.ts';
import type { DirectoryStore } from '../domain/account/organizations.ts';
import type { CursorCodec } from '../domain/core/cursor.ts';
import * as taxii from '../domain/taxii/index.ts';
import { apiHandler } from './api-handler.ts';
import * as http from './taxii.ts';

export const collectionPageRequest = {
  pathParameters: http.collectionPath,
  queryStringParameters: http.objectsQuery,
};
export type CollectionPageDeps = {
  keys: KeyResolver;
  store: taxii.TaxiiStore;
  cursors: CursorCodec;
  directory: Pick<DirectoryStore, 'findOrganization'>;
};
type Page = Awaited<ReturnType<typeof taxii.readCollectionPage>>;

/**
 * A route that answers one page of a collection, as `render` shows it (the objects, or their
 * manifest); `request` is the route's own (routes are told apart by their request).
 */
export const collectionPageHandler =
  (request: typeof collectionPageRequest, render: (page: Page) => unknown) =>
  ({ keys, ...deps }: CollectionPageDeps) =>
    apiHandler(
      { request, keys, ...http.taxiiRoute('read') },
      async ({ auth, headers, pathParameters, queryStringParameters }) => {
        const key = { ...auth, keyHash: http.keyDigestOf(headers) };
        const query = http.objectQueryOf(queryStringParameters);
        const page = await taxii.readCollectionPage(deps, key, pathParameters.collectionId, query);
        return http.taxiiJson(200, render(page), taxii.dateAddedHeaders(page));
      },
    );
