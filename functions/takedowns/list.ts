import { actingOrganization } from '../../shared/domain/account/access.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { type ListDeps, listTakedowns, pagingOf } from '../../shared/domain/lifecycle/views.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { takedownsBody } from '../../shared/http/lifecycle-list-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: takedownsBody };
type Deps = ListDeps & { directory: Pick<DirectoryStore, 'listBrands' | 'findMembership'> };

export const createHandler = ({ keys, cursors, ...stores }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth, body }) => {
      const { organizationSlug, per_page, next_page, ...query } = body;
      const orgId = await actingOrganization(stores.directory, auth, organizationSlug, 'takedowns');
      return json(200, await listTakedowns(stores, cursors, orgId, { ...query, ...pagingOf(body) }));
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  lists: runtime.lists(),
  cursors: runtime.cursors(),
  directory: runtime.directory(),
});
