import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type UnblockDeps, unblockAsset } from '../../shared/domain/intake/unblock.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { boundedText, MAX_CONTENT_LENGTH } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    { content: v.pipe(boundedText('content', 1, MAX_CONTENT_LENGTH), v.trim(), v.nonEmpty('content is required')) },
    'Request body must be an object with content',
  ),
};

export const createHandler = ({ keys, now, ...deps }: UnblockDeps & { keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'organization', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) =>
    json(200, await unblockAsset(deps, auth.orgId, body.content, now())),
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.unblockDeps() });
