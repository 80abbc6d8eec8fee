import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import type { PublicSuffixes } from '../../shared/domain/check/index.ts';
import { insightsOrganization } from '../../shared/domain/insights/insights.ts';
import type { ActivityStore } from '../../shared/domain/lifecycle/activity.ts';
import type { ListStore } from '../../shared/domain/lifecycle/lists.ts';
import { searchReports } from '../../shared/domain/lookups/reports-search.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { reportsSearchBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: reportsSearchBody };
type Deps = {
  keys: KeyResolver;
  lists: ListStore;
  store: Pick<ActivityStore, 'find'>;
  directory: Pick<DirectoryStore, 'findMembership'>;
  suffixes: PublicSuffixes;
};

export const createHandler = ({ keys, directory, ...deps }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, body }) => {
    const orgId = await insightsOrganization(directory, auth, body.slug ?? body.organizationSlug, 'reports');
    return json(200, await searchReports(deps, orgId, body.assets ?? body.assetContents));
  });

export const handler = createHandler({
  keys: runtime.keys(),
  lists: runtime.lists(),
  store: runtime.activity(),
  directory: runtime.directory(),
  suffixes: runtime.suffixes(),
});
