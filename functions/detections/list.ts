import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type DetectionDeps, listDetections } from '../../shared/domain/detections/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { listBody } from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: listBody };

export const createHandler = ({ keys, ...deps }: DetectionDeps & { keys: KeyResolver }) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, body }) =>
    json(200, await listDetections(deps, auth, body)),
  );

export const handler = createHandler({ keys: runtime.keys(), ...runtime.detectionDeps() });
