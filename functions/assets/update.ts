import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type AssetStore, updateAsset } from '../../shared/domain/allowlist/assets.ts';
import type { GroupStore } from '../../shared/domain/allowlist/groups.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { assetFields } from '../../shared/http/asset-schemas.ts';
import { json } from '../../shared/http/json.ts';
import { bodyIdMatches, positiveId } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';
import { jsonSchemaTwin } from '../../shared/schema-twin.ts';

const { name, description, groupId } = assetFields;
export const request = {
  pathParameters: v.object({ assetId: positiveId('Asset ID is required') }),
  body: v.pipe(
    v.object({ assetId: v.optional(v.unknown()), name, description, groupId }, 'Request body must be an object'),
    v.check(
      (body) => body.name !== undefined || body.description !== undefined || body.groupId !== undefined,
      'At least one field (name, description, or groupId) must be provided',
    ),
    jsonSchemaTwin({ anyOf: [{ required: ['name'] }, { required: ['description'] }, { required: ['groupId'] }] }),
  ),
};
type Deps = { keys: KeyResolver; assets: AssetStore; groups: GroupStore };

export const createHandler = ({ keys, assets, groups }: Deps) =>
  apiHandler(
    { request, caller: 'organization', scope: 'write', rateClass: 'write', keys },
    async ({ auth, pathParameters, body }) => {
      bodyIdMatches('assetId', pathParameters.assetId, body);
      return json(200, await updateAsset(assets, groups, auth.orgId, pathParameters.assetId, body));
    },
  );

export const handler = createHandler({ keys: runtime.keys(), assets: runtime.assets(), groups: runtime.groups() });
