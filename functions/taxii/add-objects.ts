import { config } from '../../shared/config.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { findCollection, type SubmissionDeps, submitObjects } from '../../shared/domain/taxii/index.ts';
import { ForbiddenError } from '../../shared/errors.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { collectionPath, envelopeBody, taxiiJson, taxiiRoute } from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { pathParameters: collectionPath, body: envelopeBody };
type Deps = Omit<SubmissionDeps, 'ignoredHosts'> & { keys: KeyResolver; now: () => number };

export const createHandler = ({ keys, now, ...deps }: Deps) =>
  apiHandler({ request, keys, ...taxiiRoute('write') }, async ({ auth, pathParameters, body }) => {
    const name = await findCollection(deps.taxii, auth.orgId, pathParameters.collectionId);
    if (name !== 'submissions') throw new ForbiddenError('Only the submissions collection accepts objects');
    const submission = { ...deps, ignoredHosts: config.reportIgnoredDomains };
    return taxiiJson(202, await submitObjects(submission, auth.orgId, body.objects, new Date(now()).toISOString()));
  });

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  taxii: runtime.taxii(),
  ...runtime.lifecycle(),
});
