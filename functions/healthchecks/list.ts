import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { healthcheckRegistry } from '../../shared/domain/insights/healthcheck-registry.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { emptyBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: emptyBody };

/** The registry of checks: any valid key may read it, and nothing is evaluated (a `slug` sent is not needed). */
export const createHandler = ({ keys }: { keys: KeyResolver }) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } }, async () =>
    json(200, healthcheckRegistry()),
  );

export const handler = createHandler({ keys: runtime.keys() });
