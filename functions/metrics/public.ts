import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import {
  legacyOrganizationMetrics,
  type MetricsStores,
  metricsDate,
  utcDay,
} from '../../shared/domain/insights/metrics.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { nullable, slug } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

const REQUIRED = 'organizationSlug is required';
export const request = {
  body: v.object(
    {
      organizationSlug: v.pipe(v.string(REQUIRED), v.nonEmpty(REQUIRED), slug('organizationSlug')),
      brandSlug: nullable(slug('brandSlug')),
      startDate: nullable(metricsDate),
      endDate: nullable(metricsDate),
    },
    REQUIRED,
  ),
};
/** Deprecated since 2026-01-01 in favour of the organization metrics endpoint. */
const deprecation = { since: 1767225600, path: '/public/getOrganizationMetrics', successor: '/organization/metrics' };
type Deps = MetricsStores & { keys: KeyResolver; now: () => number };

export const createHandler = ({ keys, now, ...stores }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys, deprecation }, async ({ auth, body }) =>
    json(200, await legacyOrganizationMetrics(stores, auth, body, utcDay(now()))),
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.metricsStores() });
