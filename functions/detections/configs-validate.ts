import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type ConfigDeps, type DetectionRun, validateConfigs } from '../../shared/domain/detections/detections.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import {
  detectionSlug,
  includeDisabled,
  lookbackHours,
  minResults,
  sourceKey,
} from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    {
      slug: detectionSlug,
      source: v.optional(sourceKey),
      minResults,
      lookbackHours,
      run: v.optional(v.boolean('run must be a boolean')),
      includeDisabled,
    },
    'Request body must be an object with slug',
  ),
};

export const createHandler = ({
  keys,
  now,
  ...deps
}: ConfigDeps & { runNow: (runs: DetectionRun[]) => Promise<void>; keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) =>
    json(200, await validateConfigs(deps, auth, body, now())),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  runNow: runtime.runDetections,
  ...runtime.detectionConfigDeps(),
});
