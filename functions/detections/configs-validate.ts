import * as v from 'valibot';
import * as detectionRuntime from '../../shared/detection-runtime.ts';
import { validateConfigs } from '../../shared/domain/detections/index.ts';
import { bodyRoute } from '../../shared/http/body-route.ts';
import * as schemas from '../../shared/http/detection-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    {
      slug: schemas.detectionSlug,
      source: v.optional(schemas.sourceKey),
      minResults: schemas.minResults,
      lookbackHours: schemas.lookbackHours,
      run: v.optional(v.boolean('run must be a boolean')),
      includeDisabled: schemas.includeDisabled,
    },
    'Request body must be an object with slug',
  ),
};

export const createHandler = bodyRoute({ request, scope: 'write', rateClass: 'write' }, validateConfigs);

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  runNow: detectionRuntime.runDetections,
  ...runtime.detectionConfigDeps(),
});
