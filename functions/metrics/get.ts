import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type MetricsStores, metricsDate, organizationMetrics, utcDay } from '../../shared/domain/insights/metrics.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { slug } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  queryStringParameters: v.object({
    brandSlug: v.optional(slug('brandSlug')),
    startDate: v.optional(metricsDate),
    endDate: v.optional(metricsDate),
  }),
};
type Deps = MetricsStores & { keys: KeyResolver; now: () => number };

export const createHandler = ({ keys, now, ...stores }: Deps) =>
  apiHandler(
    { request, caller: 'organization', scope: 'read', rateClass: 'read', keys },
    async ({ auth, queryStringParameters }) =>
      json(200, await organizationMetrics(stores, auth.orgId, queryStringParameters, utcDay(now()))),
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.metricsStores() });
