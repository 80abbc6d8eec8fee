import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type ConfigDeps, createConfig } from '../../shared/domain/detections/detections.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import {
  configId,
  configObject,
  cron,
  description,
  detectionSlug,
  sourceKey,
  title,
} from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    {
      slug: detectionSlug,
      source: sourceKey,
      config: v.optional(configObject, {}),
      cron: v.optional(cron),
      brandId: v.optional(configId),
      title: v.optional(title),
      description: v.optional(description),
    },
    'Request body must be an object with slug and source',
  ),
};

export const createHandler = ({ keys, now, ...deps }: ConfigDeps & { keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) =>
    json(200, await createConfig(deps, auth, body, now())),
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.detectionConfigDeps() });
