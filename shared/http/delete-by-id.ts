import * as v from 'valibot';
import type { KeyResolver } from '../domain/account/api-keys.ts';
import { apiHandler } from './api-handler.ts';
import { json } from './json.ts';
import { bodyIdMatches, positiveId } from './schemas.ts';

type IdName = 'assetId' | 'groupId';

/**
 * The request of a DELETE by the id in its path. Documented clients repeat the id in the body
 * (it must match); generated clients send no body at all. `message` answers a malformed id,
 * `required` (default: `message`) an empty one.
 */
export const deleteByIdRequest = <K extends IdName>(name: K, message: string, required = message) => ({
  pathParameters: v.object({ [name]: positiveId(message, required) } as Record<K, ReturnType<typeof positiveId>>),
  body: v.optional(
    v.object(
      { [name]: v.optional(v.unknown()) } as Record<K, v.OptionalSchema<v.UnknownSchema, undefined>>,
      'Request body must be an object',
    ),
  ),
});

/** An organization's DELETE by path id: `remove` answers the 200 body. */
export const deleteByIdHandler = <K extends IdName>(
  request: ReturnType<typeof deleteByIdRequest<K>>,
  name: K,
  keys: KeyResolver,
  remove: (orgId: string, id: number) => Promise<unknown>,
) =>
  apiHandler(
    { request, caller: 'organization', scope: 'write', rateClass: 'write', keys, body: { optional: true } },
    async ({ auth, pathParameters, body }) => {
      const id = (pathParameters as Record<IdName, number>)[name];
      bodyIdMatches(name, id, body);
      return json(200, await remove(auth.orgId, id));
    },
  );
