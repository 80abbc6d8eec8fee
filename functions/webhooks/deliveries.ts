import { actingOrganization } from '../../shared/domain/account/access.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { deliveriesQuery, webhookId } from '../../shared/http/webhook-schemas.ts';
import * as runtime from '../../shared/runtime.ts';
import { listDeliveries, type ManageDeps } from '../../shared/webhooks/manage.ts';

export const request = { pathParameters: webhookId, queryStringParameters: deliveriesQuery };
type Deps = Pick<ManageDeps, 'hooks' | 'deliveries'> & {
  keys: KeyResolver;
  directory: Pick<DirectoryStore, 'findMembership'>;
};

export const createHandler = ({ keys, directory, ...deps }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'write', rateClass: 'read', keys },
    async ({ auth, pathParameters, queryStringParameters: q }) => {
      const orgId = await actingOrganization(directory, auth, q.organizationSlug, 'webhooks');
      return json(
        200,
        await listDeliveries(deps, orgId, pathParameters.id, { perPage: q.per_page, nextPage: q.next_page }),
      );
    },
  );

const store = runtime.webhooks();
export const handler = createHandler({
  keys: runtime.keys(),
  directory: runtime.directory(),
  hooks: store,
  deliveries: store,
});
