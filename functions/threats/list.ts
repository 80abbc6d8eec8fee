import { actingOrganization } from '../../shared/domain/account/access.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { utcDay } from '../../shared/domain/insights/metrics.ts';
import { type ListDeps, listThreats, pagingOf } from '../../shared/domain/lifecycle/views.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { threatsBody } from '../../shared/http/lifecycle-list-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: threatsBody };
type Deps = ListDeps & { directory: Pick<DirectoryStore, 'findMembership'>; now: () => number };

export const createHandler = ({ keys, lists, cursors, directory, now }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth, body }) => {
      const { organizationSlug, per_page, next_page, ...query } = body;
      const orgId = await actingOrganization(directory, auth, organizationSlug, 'threats');
      return json(200, await listThreats(lists, cursors, orgId, { ...query, ...pagingOf(body) }, utcDay(now())));
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  directory: runtime.directory(),
  lists: runtime.lists(),
  cursors: runtime.cursors(),
});
