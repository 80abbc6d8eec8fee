import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { deleteGroup, type GroupStore } from '../../shared/domain/allowlist/groups.ts';
import { deleteByIdHandler, deleteByIdRequest } from '../../shared/http/delete-by-id.ts';
import * as runtime from '../../shared/runtime.ts';

/** The published texts: `Invalid group ID` for a malformed id, `Group ID is required` for an empty one. */
export const request = deleteByIdRequest('groupId', 'Invalid group ID', 'Group ID is required');

export const createHandler = ({ keys, groups }: { keys: KeyResolver; groups: GroupStore }) =>
  deleteByIdHandler(request, 'groupId', keys, (orgId, groupId) => deleteGroup(groups, orgId, groupId));

export const handler = createHandler({ keys: runtime.keys(), groups: runtime.groups() });
