import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type InsightsStores, insightsOrganization, metricsSummary } from '../../shared/domain/insights/insights.ts';
import { utcDay } from '../../shared/domain/insights/metrics.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { metricsSummaryBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: metricsSummaryBody };
type Deps = InsightsStores & { keys: KeyResolver; now: () => number };

export const createHandler = ({ keys, now, ...stores }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth, body }) => {
      const { slug, ...query } = body;
      const orgId = await insightsOrganization(stores.directory, auth, slug, 'metrics');
      return json(200, await metricsSummary(stores, orgId, query, utcDay(now())));
    },
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.metricsStores() });
