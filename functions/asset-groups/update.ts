import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type GroupStore, renameGroup } from '../../shared/domain/allowlist/groups.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { bodyIdMatches, groupName, positiveId } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  pathParameters: v.object({ groupId: positiveId('Group ID must be a positive integer') }),
  body: v.object({ groupId: v.optional(v.unknown()), name: groupName }, 'Group name is required'),
};

export const createHandler = ({ keys, groups }: { keys: KeyResolver; groups: GroupStore }) =>
  apiHandler(
    { request, caller: 'organization', scope: 'write', rateClass: 'write', keys },
    async ({ auth, pathParameters, body }) => {
      bodyIdMatches('groupId', pathParameters.groupId, body);
      const { id, name } = await renameGroup(groups, auth.orgId, pathParameters.groupId, body.name);
      return json(200, { id, name });
    },
  );

export const handler = createHandler({ keys: runtime.keys(), groups: runtime.groups() });
