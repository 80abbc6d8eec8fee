import { actingOrganization } from '../../shared/domain/account/access.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { organizationBody, webhookId } from '../../shared/http/webhook-schemas.ts';
import * as runtime from '../../shared/runtime.ts';
import { type ManageDeps, sendTestEvent } from '../../shared/webhooks/manage.ts';

export const request = { pathParameters: webhookId, body: organizationBody };
type Deps = Pick<ManageDeps, 'hooks' | 'deliveries' | 'enqueue' | 'now'> & {
  keys: KeyResolver;
  directory: Pick<DirectoryStore, 'findMembership'>;
};

export const createHandler = ({ keys, directory, ...deps }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'write', rateClass: 'write', keys, body: { optional: true } },
    async ({ auth, pathParameters, body }) => {
      const orgId = await actingOrganization(directory, auth, body.organizationSlug, 'webhooks');
      return json(200, await sendTestEvent(deps, orgId, pathParameters.id));
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  directory: runtime.directory(),
  ...runtime.webhookTesting(),
});
