import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/api-keys.ts';
import { deleteGroup, type GroupStore } from '../../shared/domain/groups.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { bodyIdMatches, positiveId } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  pathParameters: v.object({ groupId: positiveId('Group ID must be a positive integer') }),
  body: v.optional(v.object({ groupId: v.optional(v.unknown()) }, 'Request body must be an object')),
};

export const createHandler = ({ keys, groups }: { keys: KeyResolver; groups: GroupStore }) =>
  apiHandler(
    { request, caller: 'organization', scope: 'write', keys, body: { optional: true } },
    async ({ auth, pathParameters: { groupId }, body }) => {
      bodyIdMatches('groupId', groupId, body);
      return json(200, await deleteGroup(groups, auth.orgId, groupId));
    },
  );

export const handler = createHandler({ keys: runtime.keys(), groups: runtime.groups() });
