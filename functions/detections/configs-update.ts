import * as v from 'valibot';
import { updateConfig } from '../../shared/domain/detections/index.ts';
import { bodyRoute } from '../../shared/http/body-route.ts';
import * as schemas from '../../shared/http/detection-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    {
      slug: schemas.detectionSlug,
      configId: schemas.configId,
      status: v.optional(v.picklist(['ENABLED', 'DISABLED'], 'status must be ENABLED or DISABLED')),
      cron: v.optional(v.nullable(schemas.cron)),
      title: v.optional(schemas.title),
      description: v.optional(schemas.description),
      config: v.optional(schemas.configObject),
      mergeConfig: v.optional(v.boolean('mergeConfig must be a boolean')),
    },
    'Request body must be an object with slug and configId',
  ),
};

export const createHandler = bodyRoute({ request, scope: 'write', rateClass: 'write' }, updateConfig);

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.detectionConfigDeps() });
