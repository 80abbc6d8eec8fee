import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { callerOf, listCollections, type TaxiiStore } from '../../shared/domain/taxii/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { taxiiJson, taxiiRoute } from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {};
type Deps = { keys: KeyResolver; taxii: TaxiiStore; directory: Pick<DirectoryStore, 'findOrganization'> };

export const createHandler = ({ keys, taxii, directory }: Deps) =>
  apiHandler({ request, keys, ...taxiiRoute('read') }, async ({ auth }) =>
    taxiiJson(200, await listCollections(taxii, await callerOf(directory, auth.orgId, auth.scopes))),
  );

export const handler = createHandler({ keys: runtime.keys(), taxii: runtime.taxii(), directory: runtime.directory() });
