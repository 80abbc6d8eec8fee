import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type ConfigDeps, updateConfig } from '../../shared/domain/detections/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import * as schemas from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
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

export const createHandler = ({ keys, now, ...deps }: ConfigDeps & { keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) =>
    json(200, await updateConfig(deps, auth, body, now())),
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.detectionConfigDeps() });
