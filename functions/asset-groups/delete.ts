import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { deleteGroup, type GroupStore } from '../../shared/domain/allowlist/groups.ts';
import { deleteByIdHandler, deleteByIdRequest } from '../../shared/http/delete-by-id.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = deleteByIdRequest('groupId', 'Group ID must be a positive integer');

export const createHandler = ({ keys, groups }: { keys: KeyResolver; groups: GroupStore }) =>
  deleteByIdHandler(request, 'groupId', keys, (orgId, groupId) => deleteGroup(groups, orgId, groupId));

export const handler = createHandler({ keys: runtime.keys(), groups: runtime.groups() });
