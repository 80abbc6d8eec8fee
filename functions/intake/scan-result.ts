import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type IntakeDeps, scanResult } from '../../shared/domain/intake/scans.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

const SCAN_ID = 'scanId must be a positive integer';

export const request = {
  body: v.object(
    { scanId: v.pipe(v.number(SCAN_ID), v.safeInteger(SCAN_ID), v.minValue(1, SCAN_ID)) },
    'Request body must be an object with scanId',
  ),
};

export const createHandler = ({ keys, ...deps }: Pick<IntakeDeps, 'scans' | 'directory'> & { keys: KeyResolver }) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, body }) =>
    json(200, await scanResult(deps, auth, body.scanId)),
  );

export const handler = createHandler({ keys: runtime.keys(), scans: runtime.scans(), directory: runtime.directory() });
