import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type AssetStore, addAssets } from '../../shared/domain/allowlist/assets.ts';
import type { GroupStore } from '../../shared/domain/allowlist/groups.ts';
import type { PublicSuffixes } from '../../shared/domain/check/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { addAssetsBody } from '../../shared/http/asset-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: addAssetsBody };
type Deps = { keys: KeyResolver; assets: AssetStore; groups: GroupStore; suffixes: PublicSuffixes };

export const createHandler = ({ keys, assets, groups, suffixes }: Deps) =>
  apiHandler(
    // 1,000 assets do not fit the default 64 KiB body; 6 MB is Lambda's own payload limit.
    {
      request,
      caller: 'organization',
      scope: 'write',
      rateClass: 'write',
      keys,
      body: { maxBytes: 6 * 1024 * 1024 },
      // Every 50 assets are about three transactions more: one more request budget each, within the function's
      // 29 s (infra/routes.ts), which 1,000 assets on a loaded host take most of.
      extraBudgets: ({ body }) => Math.floor(body.assets.length / 50),
    },
    async ({ auth, body }) => json(200, await addAssets(suffixes, assets, groups, auth.orgId, body.assets)),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  assets: runtime.assets(),
  groups: runtime.groups(),
  suffixes: runtime.suffixes(),
});
