import * as v from 'valibot';
import { submitAssets } from '../../shared/domain/intake/scans.ts';
import { bodyRoute } from '../../shared/http/body-route.ts';
import { boundedText, organizationSlug } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

const MAX_ASSETS = 100;
const MAX_ASSET_LENGTH = 1000;

export const request = {
  body: v.object(
    {
      assets: v.pipe(
        v.array(boundedText('asset', 1, MAX_ASSET_LENGTH), 'assets must be an array of strings'),
        v.minLength(1, 'assets must hold at least one asset'),
        v.maxLength(MAX_ASSETS, `assets must hold at most ${MAX_ASSETS} assets`),
      ),
      organizationSlug: v.optional(organizationSlug),
    },
    'Request body must be an object with assets',
  ),
};

export const createHandler = bodyRoute({ request, scope: 'write', rateClass: 'report' }, submitAssets);

const intake = {
  scans: runtime.scans(),
  queue: runtime.scanQueue(),
  directory: runtime.directory(),
  suffixes: runtime.suffixes(),
};
export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...intake });
