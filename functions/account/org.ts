import * as v from 'valibot';
import { type AccountStores, userOrganization } from '../../shared/domain/account/account.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { slug } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { pathParameters: v.object({ slug: slug('slug') }, 'slug is required') };
type Deps = AccountStores & { keys: KeyResolver };

export const createHandler = ({ keys, ...stores }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, pathParameters }) =>
    json(200, await userOrganization(stores, auth, pathParameters.slug)),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  profiles: runtime.profiles(),
  settings: runtime.settings(),
  directory: runtime.directory(),
});
