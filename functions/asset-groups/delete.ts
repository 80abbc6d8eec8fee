import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/api-keys.ts';
import { deleteGroup, type GroupStore } from '../../shared/domain/groups.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { positiveId } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { pathParameters: v.object({ groupId: positiveId('Group ID must be a positive integer') }) };

export const createHandler = ({ keys, groups }: { keys: KeyResolver; groups: GroupStore }) =>
  apiHandler({ request, caller: 'organization', scope: 'write', keys }, async ({ auth, pathParameters }) =>
    json(200, await deleteGroup(groups, auth.orgId, pathParameters.groupId)),
  );

export const handler = createHandler({ keys: runtime.keys(), groups: runtime.groups() });
