import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type IntakeDeps, submitAssets } from '../../shared/domain/intake/scans.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { boundedText, organizationSlug } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

const MAX_ASSETS = 100;
export const request = {
  body: v.object(
    {
      assets: v.pipe(
        v.array(boundedText('asset', 1, 1000), 'assets must be an array of strings'),
        v.minLength(1, 'assets must hold at least one asset'),
        v.maxLength(MAX_ASSETS, `assets must hold at most ${MAX_ASSETS} assets`),
      ),
      organizationSlug: v.optional(organizationSlug),
    },
    'Request body must be an object with assets',
  ),
};

export const createHandler = ({ keys, now, ...deps }: IntakeDeps & { keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'report', keys }, async ({ auth, body }) =>
    json(200, await submitAssets(deps, auth, body, now())),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  scans: runtime.scans(),
  queue: runtime.scanQueue(),
  directory: runtime.directory(),
});
