import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import type { CursorCodec } from '../../shared/domain/core/cursor.ts';
import { insightsOrganization } from '../../shared/domain/insights/insights.ts';
import type { ListStore } from '../../shared/domain/lifecycle/lists.ts';
import { listReports } from '../../shared/domain/lifecycle/views.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { organizationReportsBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: organizationReportsBody };
/** Deprecated since 2026-01-01 in favour of the organization reports listing. */
const deprecation = { since: 1767225600, path: '/public/getOrganizationReports', successor: '/organization/reports' };
type Deps = {
  keys: KeyResolver;
  lists: ListStore;
  cursors: CursorCodec;
  directory: Pick<DirectoryStore, 'findMembership'>;
};

export const createHandler = ({ keys, lists, cursors, directory }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, deprecation, body: { optional: true } },
    async ({ auth, body }) => {
      const { slug, organizationSlug, limit, cursor, ...query } = body;
      const orgId = await insightsOrganization(directory, auth, slug ?? organizationSlug, 'reports');
      const paging = { limit: limit ?? 50, ...(cursor === undefined ? {} : { cursor }) };
      return json(200, await listReports(lists, cursors, orgId, { ...query, ...paging }));
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  lists: runtime.lists(),
  cursors: runtime.cursors(),
  directory: runtime.directory(),
});
