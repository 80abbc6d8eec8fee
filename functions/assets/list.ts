import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type AssetStore, listAssets } from '../../shared/domain/allowlist/assets.ts';
import type { GroupStore } from '../../shared/domain/allowlist/groups.ts';
import type { CursorCodec } from '../../shared/domain/core/cursor.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { assetType, groupFilter, perPage, queryCursor, searchQuery } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  queryStringParameters: v.object({
    type: v.optional(assetType),
    groupId: v.optional(groupFilter),
    query: v.optional(searchQuery),
    per_page: perPage(1000, 100),
    next_page: queryCursor('next_page'),
  }),
};
type Deps = { keys: KeyResolver; assets: AssetStore; groups: GroupStore; cursors: CursorCodec };

export const createHandler = ({ keys, assets, groups, cursors }: Deps) =>
  apiHandler(
    { request, caller: 'organization', scope: 'read', rateClass: 'read', keys },
    async ({ auth, queryStringParameters }) =>
      json(200, await listAssets({ store: assets, groups, cursors }, auth.orgId, queryStringParameters)),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  assets: runtime.assets(),
  groups: runtime.groups(),
  cursors: runtime.cursors(),
});
