import { callerFoundThreats, type InsightsStores } from '../../shared/domain/insights/insights.ts';
import { utcDay } from '../../shared/domain/insights/metrics.ts';
import { bodyRoute } from '../../shared/http/body-route.ts';
import { metricsFoundBody } from '../../shared/http/insights-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: metricsFoundBody };
export const createHandler = bodyRoute(
  { request, scope: 'read', rateClass: 'read', body: { optional: true } },
  (stores: InsightsStores, caller, body, now) => callerFoundThreats(stores, caller, body, utcDay(now)),
);

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.metricsStores() });
