import * as v from 'valibot';
import { createConfig } from '../../shared/domain/detections/index.ts';
import { bodyRoute } from '../../shared/http/body-route.ts';
import * as schemas from '../../shared/http/detection-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    {
      slug: schemas.detectionSlug,
      source: schemas.sourceKey,
      config: v.optional(schemas.configObject, {}),
      cron: v.optional(schemas.cron),
      brandId: v.optional(schemas.configId),
      title: v.optional(schemas.title),
      description: v.optional(schemas.description),
    },
    'Request body must be an object with slug and source',
  ),
};

export const createHandler = bodyRoute({ request, scope: 'write', rateClass: 'write' }, createConfig);

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.detectionConfigDeps() });
