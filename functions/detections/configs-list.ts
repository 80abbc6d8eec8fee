import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type DetectionDeps, listConfigs } from '../../shared/domain/detections/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { detectionSlug } from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: v.object({ slug: detectionSlug }, 'Request body must be an object with slug') };

export const createHandler = ({ keys, ...deps }: DetectionDeps & { keys: KeyResolver }) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, body }) =>
    json(200, await listConfigs(deps, auth, body.slug)),
  );

export const handler = createHandler({ keys: runtime.keys(), ...runtime.detectionDeps() });
