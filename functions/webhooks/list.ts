import { actingOrganization } from '../../shared/domain/account/access.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { organizationQuery } from '../../shared/http/webhook-schemas.ts';
import * as runtime from '../../shared/runtime.ts';
import { listWebhooks, type ManageDeps } from '../../shared/webhooks/manage.ts';

export const request = { queryStringParameters: organizationQuery };
type Deps = Pick<ManageDeps, 'hooks'> & { keys: KeyResolver; directory: Pick<DirectoryStore, 'findMembership'> };

export const createHandler = ({ keys, directory, ...deps }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'write', rateClass: 'read', keys },
    async ({ auth, queryStringParameters }) => {
      const orgId = await actingOrganization(directory, auth, queryStringParameters.organizationSlug, 'webhooks');
      return json(200, await listWebhooks(deps, orgId));
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  directory: runtime.directory(),
  hooks: runtime.webhooks(),
});
