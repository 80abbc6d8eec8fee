import * as v from 'valibot';
import { startScan } from '../../shared/domain/intake/scans.ts';
import { bodyRoute } from '../../shared/http/body-route.ts';
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

export const createHandler = bodyRoute({ request, scope: 'write', rateClass: 'report' }, startScan);

const intake = {
  scans: runtime.scans(),
  queue: runtime.scanQueue(),
  directory: runtime.directory(),
  suffixes: runtime.suffixes(),
};
export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...intake });
