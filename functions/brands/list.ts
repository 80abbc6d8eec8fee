import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { listBrands } from '../../shared/domain/account/brands.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {};

export const createHandler = ({
  keys,
  directory,
}: {
  keys: KeyResolver;
  directory: Pick<DirectoryStore, 'listBrands'>;
}) =>
  apiHandler({ request, caller: 'organization', scope: 'read', rateClass: 'read', keys }, async ({ auth }) =>
    json(200, { brands: await listBrands(directory, auth.orgId) }),
  );

export const handler = createHandler({ keys: runtime.keys(), directory: runtime.directory() });
