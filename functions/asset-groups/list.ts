import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type GroupStore, listGroups } from '../../shared/domain/allowlist/groups.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {};

export const createHandler = ({ keys, groups }: { keys: KeyResolver; groups: GroupStore }) =>
  apiHandler({ request, caller: 'organization', scope: 'read', rateClass: 'read', keys }, async ({ auth }) =>
    json(200, { groups: await listGroups(groups, auth.orgId) }),
  );

export const handler = createHandler({ keys: runtime.keys(), groups: runtime.groups() });
