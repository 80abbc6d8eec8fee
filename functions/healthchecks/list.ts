import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import {
  type HealthcheckSources,
  healthcheckInputs,
  runHealthchecks,
  tuningOf,
} from '../../shared/domain/insights/healthchecks.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { healthcheckBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: healthcheckBody };
type Deps = HealthcheckSources & { keys: KeyResolver };

export const createHandler = ({ keys, ...sources }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth, body }) =>
      json(200, { checks: runHealthchecks(await healthcheckInputs(sources, auth, body.slug, tuningOf(body))) }),
  );

export const handler = createHandler({ keys: runtime.keys(), ...runtime.healthcheckSources() });
