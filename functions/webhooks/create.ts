import { actingOrganization } from '../../shared/domain/account/access.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { createWebhookBody } from '../../shared/http/webhook-schemas.ts';
import * as runtime from '../../shared/runtime.ts';
import { createWebhook, type ManageDeps } from '../../shared/webhooks/manage.ts';

export const request = { body: createWebhookBody };
type Deps = Pick<ManageDeps, 'hooks' | 'sealer' | 'receivers' | 'now'> & {
  keys: KeyResolver;
  directory: Pick<DirectoryStore, 'findMembership'>;
};

export const createHandler = ({ keys, directory, ...deps }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) => {
    const { organizationSlug, ...input } = body;
    const orgId = await actingOrganization(directory, auth, organizationSlug, 'webhooks');
    return json(200, await createWebhook(deps, orgId, input));
  });

export const handler = createHandler({
  keys: runtime.keys(),
  directory: runtime.directory(),
  ...runtime.webhookCreation(),
});
