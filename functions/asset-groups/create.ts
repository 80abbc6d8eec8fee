import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { createGroup, type GroupStore } from '../../shared/domain/allowlist/groups.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { groupName } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: v.object({ name: groupName }, 'Group name is required') };

export const createHandler = ({ keys, groups }: { keys: KeyResolver; groups: GroupStore }) =>
  apiHandler({ request, caller: 'organization', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) => {
    const { id, name } = await createGroup(groups, auth.orgId, body.name);
    return json(200, { id, name });
  });

export const handler = createHandler({ keys: runtime.keys(), groups: runtime.groups() });
