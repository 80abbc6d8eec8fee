import * as v from 'valibot';
import { detectionDrift } from '../../shared/domain/detections/index.ts';
import { bodyRoute } from '../../shared/http/body-route.ts';
import * as schemas from '../../shared/http/detection-schemas.ts';
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

export const createHandler = bodyRoute({ request, scope: 'read', rateClass: 'read' }, detectionDrift);

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.detectionDeps() });
