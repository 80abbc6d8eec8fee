import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import {
  type HealthcheckSources,
  healthcheckOfPath,
  requestedInputs,
  runHealthcheck,
} from '../../shared/domain/insights/healthchecks.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { healthcheckBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: healthcheckBody };

/** Serves every check's route: the path names the check (`/healthchecks/<area>/<name>`), unknown is 404. */
export const createHandler = ({ keys, ...sources }: HealthcheckSources & { keys: KeyResolver }) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth, body, rawPath }) =>
      json(200, await runHealthcheck(healthcheckOfPath(rawPath), await requestedInputs(sources, auth, body))),
  );

export const handler = createHandler({ keys: runtime.keys(), ...runtime.healthcheckSources() });
