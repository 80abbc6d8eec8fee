import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { effectiveSettings, type SettingsStore } from '../../shared/domain/account/organization-settings.ts';
import {
  type InsightsStores,
  insightsOrganization,
  type OpenWorkStore,
  openWork,
  queuesSnapshot,
} from '../../shared/domain/insights/insights.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { queuesSnapshotBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: queuesSnapshotBody };
type Deps = InsightsStores & { keys: KeyResolver; settings: SettingsStore; work: OpenWorkStore; now: () => number };

export const createHandler = ({ keys, now, settings, work: openWorkStore, ...stores }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth, body }) => {
      const orgId = await insightsOrganization(stores.directory, auth, body.slug, 'queues');
      const [work, stored] = await Promise.all([openWork(openWorkStore, orgId), settings.find(orgId)]);
      return json(200, queuesSnapshot(work, effectiveSettings(stored), now(), body.windowHours));
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  settings: runtime.settings(),
  work: runtime.openWork(),
  ...runtime.metricsStores(),
});
