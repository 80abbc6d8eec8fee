import { type AccountStores, userOrganizations } from '../../shared/domain/account/account.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { userOrgsBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: userOrgsBody };
type Deps = AccountStores & { keys: KeyResolver };

export const createHandler = ({ keys, ...stores }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth, body }) => json(200, await userOrganizations(stores, auth, body)),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  profiles: runtime.profiles(),
  settings: runtime.settings(),
  directory: runtime.directory(),
});
