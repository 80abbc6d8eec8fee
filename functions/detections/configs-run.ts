import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type DetectionDeps, queueRuns, type RunQueue } from '../../shared/domain/detections/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { configId, detectionSlug, includeDisabled, sourceKey } from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    { slug: detectionSlug, configId: v.optional(configId), source: v.optional(sourceKey), includeDisabled },
    'Request body must be an object with slug',
  ),
};

export const createHandler = ({
  keys,
  now,
  ...deps
}: DetectionDeps & { queue: RunQueue; keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) =>
    json(200, await queueRuns(deps, auth, body, now())),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  queue: runtime.detectionQueue(),
  ...runtime.detectionDeps(),
});
