import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { findCollection, type SubmissionDeps, submitObjects } from '../../shared/domain/taxii/index.ts';
import { ForbiddenError } from '../../shared/errors.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { collectionPath, taxiiJson, taxiiRoute } from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

/** As many objects as `/report/create` takes assets: they become the proposals of one report. */
const MAX_OBJECTS = 100;
export const request = {
  pathParameters: collectionPath,
  body: v.object(
    {
      objects: v.pipe(
        v.array(v.unknown(), 'objects must be an array of STIX objects'),
        v.minLength(1, 'objects must hold at least one object'),
        v.maxLength(MAX_OBJECTS, `At most ${MAX_OBJECTS} objects per request`),
      ),
    },
    'The body must be an envelope {"objects": [...]}',
  ),
};
type Deps = Omit<SubmissionDeps, 'ignoredHosts'> & { keys: KeyResolver; now: () => number };

export const createHandler = ({ keys, now, ...deps }: Deps) =>
  apiHandler({ request, keys, ...taxiiRoute('write') }, async ({ auth, pathParameters, body }) => {
    const name = await findCollection(deps.taxii, auth.orgId, pathParameters.collectionId);
    if (name !== 'submissions') throw new ForbiddenError('Only the submissions collection accepts objects');
    const at = new Date(now()).toISOString();
    const status = await submitObjects(
      { ...deps, ignoredHosts: config.reportIgnoredDomains },
      auth.orgId,
      body.objects,
      at,
    );
    return taxiiJson(202, status);
  });

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  taxii: runtime.taxii(),
  ...runtime.lifecycle(),
});
