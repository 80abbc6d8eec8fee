import { config } from '../../shared/config.ts';
import { actingOrganization } from '../../shared/domain/account/access.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { createReport, type ReportDeps } from '../../shared/domain/lifecycle/reports.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { reportBody } from '../../shared/http/lifecycle-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: reportBody };
type Deps = Omit<ReportDeps, 'ignoredHosts' | 'directory'> & {
  directory: Pick<DirectoryStore, 'findOrganization' | 'findMembership'>;
  keys: KeyResolver;
  now: () => number;
  ignoredHosts: () => string[];
};

export const createHandler = ({ keys, now, ignoredHosts, ...stores }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'report', keys }, async ({ auth, body }) => {
    const { organizationSlug, ...report } = body;
    const orgId = await actingOrganization(stores.directory, auth, organizationSlug, 'reports');
    const at = new Date(now()).toISOString();
    return json(200, await createReport({ ...stores, ignoredHosts: ignoredHosts() }, orgId, report, { now: at }));
  });

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  ignoredHosts: () => config.reportIgnoredDomains,
  ...runtime.lifecycle(),
});
