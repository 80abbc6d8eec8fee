import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { findCollection, type TaxiiStore } from '../../shared/domain/taxii/index.ts';
import { ForbiddenError } from '../../shared/errors.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { objectPath, taxiiRoute } from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { pathParameters: objectPath };

/** The service maintains its collections: no object is deleted through TAXII, whatever the key's scopes (after the collection is checked to be the caller's). */
export const createHandler = ({ keys, store }: { keys: KeyResolver; store: TaxiiStore }) =>
  apiHandler({ request, keys, ...taxiiRoute('read') }, async ({ auth, pathParameters }) => {
    await findCollection(store, auth.orgId, pathParameters.collectionId);
    throw new ForbiddenError('Objects of these collections are maintained by the service and cannot be deleted');
  });

export const handler = createHandler({ keys: runtime.keys(), store: runtime.taxii() });
