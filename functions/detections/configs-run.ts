import * as v from 'valibot';
import { queueRuns } from '../../shared/domain/detections/index.ts';
import { bodyRoute } from '../../shared/http/body-route.ts';
import { configId, detectionSlug, includeDisabled, sourceKey } from '../../shared/http/detection-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    { slug: detectionSlug, configId: v.optional(configId), source: v.optional(sourceKey), includeDisabled },
    'Request body must be an object with slug',
  ),
};

export const createHandler = bodyRoute({ request, scope: 'write', rateClass: 'write' }, queueRuns);

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  queue: runtime.detectionQueue(),
  ...runtime.detectionDeps(),
});
