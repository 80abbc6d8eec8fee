import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type ConfigDeps, type DetectionRun, validateConfigs } from '../../shared/domain/detections/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import * as schemas from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
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

type Deps = ConfigDeps & { runNow: (runs: DetectionRun[]) => Promise<void>; keys: KeyResolver; now: () => number };

export const createHandler = ({ keys, now, ...deps }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) =>
    json(200, await validateConfigs(deps, auth, body, now())),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  runNow: runtime.runDetections,
  ...runtime.detectionConfigDeps(),
});
