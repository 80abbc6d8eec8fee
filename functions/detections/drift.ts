import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type DetectionDeps, detectionDrift } from '../../shared/domain/detections/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import * as schemas from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    {
      slug: schemas.detectionSlug,
      source: v.optional(schemas.sourceKey),
      configId: v.optional(schemas.configId),
      lookbackHours: schemas.lookbackHours,
      includeDisabled: schemas.includeDisabled,
    },
    'Request body must be an object with slug',
  ),
};

export const createHandler = ({ keys, now, ...deps }: DetectionDeps & { keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, body }) =>
    json(200, await detectionDrift(deps, auth, body, now())),
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.detectionDeps() });
