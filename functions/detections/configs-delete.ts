import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type DetectionDeps, deleteConfig } from '../../shared/domain/detections/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { configId, detectionSlug } from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object({ slug: detectionSlug, configId }, 'Request body must be an object with slug and configId'),
};

export const createHandler = ({ keys, now, ...deps }: DetectionDeps & { keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) =>
    json(200, await deleteConfig(deps, auth, body, now())),
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.detectionDeps() });
