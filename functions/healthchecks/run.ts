import { config } from '../../shared/config.ts';
import type { KeyResolver } from '../../shared/domain/api-keys.ts';
import { healthcheckOfPath, runHealthcheck } from '../../shared/domain/healthchecks.ts';
import {
  type InsightsStores,
  insightsOrganization,
  type OpenWorkStore,
  openWork,
} from '../../shared/domain/insights.ts';
import { utcDay } from '../../shared/domain/metrics.ts';
import {
  effectiveSettings,
  type SettingsStore,
  type StageThresholds,
} from '../../shared/domain/organization-settings.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { organizationBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: organizationBody };
type Deps = InsightsStores & {
  keys: KeyResolver;
  settings: SettingsStore;
  work: OpenWorkStore;
  now: () => number;
  /** The stage's thresholds (none: the built-in ones). */
  thresholds?: () => StageThresholds;
};

/** Serves every check's route: the path names the check (`/healthchecks/<area>/<name>`). */
export const createHandler = ({ keys, now, settings, work: openWorkStore, thresholds, ...stores }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth, body, rawPath }) => {
      const check = healthcheckOfPath(rawPath);
      const orgId = await insightsOrganization(stores.directory, auth, body.slug, 'healthchecks');
      const [work, stored] = await Promise.all([openWork(openWorkStore, orgId), settings.find(orgId)]);
      const time = now();
      return json(
        200,
        runHealthcheck(check, {
          work,
          settings: effectiveSettings(stored, thresholds?.()),
          now: time,
          today: utcDay(time),
        }),
      );
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  thresholds: () => config.healthcheckThresholds,
  settings: runtime.settings(),
  work: runtime.openWork(),
  ...runtime.metricsStores(),
});
