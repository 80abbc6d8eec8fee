import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type AssetStore, removeAsset } from '../../shared/domain/allowlist/assets.ts';
import { deleteByIdHandler, deleteByIdRequest } from '../../shared/http/delete-by-id.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = deleteByIdRequest('assetId', 'Asset ID is required');

export const createHandler = ({ keys, assets }: { keys: KeyResolver; assets: AssetStore }) =>
  deleteByIdHandler(request, 'assetId', keys, async (orgId, assetId) => ({
    success: true,
    id: await removeAsset(assets, orgId, assetId),
  }));

export const handler = createHandler({ keys: runtime.keys(), assets: runtime.assets() });
