import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type IntakeDeps, startScan } from '../../shared/domain/intake/scans.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { boundedText, organizationSlug } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    {
      content: v.pipe(boundedText('content', 1, 1000), v.trim(), v.nonEmpty('content is required')),
      organizationSlug: v.optional(organizationSlug),
    },
    'Request body must be an object with content',
  ),
};

export const createHandler = ({ keys, now, ...deps }: IntakeDeps & { keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'report', keys }, async ({ auth, body }) =>
    json(200, await startScan(deps, auth, body, now())),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  scans: runtime.scans(),
  queue: runtime.scanQueue(),
  directory: runtime.directory(),
});
