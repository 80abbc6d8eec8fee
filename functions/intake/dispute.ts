import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { createDispute, type DisputeDeps } from '../../shared/domain/intake/disputes.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { boundedText, MAX_CONTENT_LENGTH } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

const EMAIL_MESSAGE = 'email must be a valid email address';

export const request = {
  body: v.object(
    {
      content: v.pipe(boundedText('content', 1, MAX_CONTENT_LENGTH), v.trim(), v.nonEmpty('content is required')),
      email: v.optional(
        v.pipe(v.string(EMAIL_MESSAGE), v.trim(), v.maxLength(320, EMAIL_MESSAGE), v.email(EMAIL_MESSAGE)),
      ),
      description: v.optional(boundedText('description', 0, 4096)),
    },
    'Request body must be an object with content',
  ),
};

export const createHandler = ({ keys, now, ...deps }: DisputeDeps & { keys: KeyResolver; now: () => number }) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'report', keys }, async ({ auth, body }) =>
    json(200, await createDispute(deps, auth, body, now())),
  );

export const handler = createHandler({ keys: runtime.keys(), now: runtime.now, ...runtime.disputeDeps() });
