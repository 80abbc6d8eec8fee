import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/api-keys.ts';
import { type AssetStore, removeAsset } from '../../shared/domain/assets.ts';
import { BadRequestError } from '../../shared/errors.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { positiveId } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  pathParameters: v.object({ assetId: positiveId('Asset ID is required') }),
  // Documented clients repeat the id in the body; generated clients send no body at all.
  body: v.optional(v.object({ assetId: v.optional(v.unknown()) }, 'Request body must be an object')),
};

export const createHandler = ({ keys, assets }: { keys: KeyResolver; assets: AssetStore }) =>
  apiHandler(
    { request, caller: 'organization', scope: 'write', keys, body: { optional: true } },
    async ({ auth, pathParameters: { assetId }, body }) => {
      if (body?.assetId !== undefined && body.assetId !== assetId && body.assetId !== String(assetId)) {
        throw new BadRequestError('assetId in the body must match the path');
      }
      return json(200, { success: true, id: await removeAsset(assets, auth.orgId, assetId) });
    },
  );

export const handler = createHandler({ keys: runtime.keys(), assets: runtime.assets() });
