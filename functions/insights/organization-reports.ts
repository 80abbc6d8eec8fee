import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { organizationReports } from '../../shared/domain/insights/insights.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { organizationReportsBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: organizationReportsBody };
/** Deprecated since 2026-01-01 in favour of the organization reports listing. */
const deprecation = { since: 1767225600, path: '/public/getOrganizationReports', successor: '/organization/reports' };
type Deps = Parameters<typeof organizationReports>[0] & { keys: KeyResolver };

export const createHandler = ({ keys, ...deps }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, deprecation, body: { optional: true } },
    async ({ auth, body }) => json(200, await organizationReports(deps, auth, body)),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  lists: runtime.lists(),
  cursors: runtime.cursors(),
  directory: runtime.directory(),
});
