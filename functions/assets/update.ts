import middy from '@middy/core';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { updateAsset } from '../../shared/domain/assets.ts';
import type { ApiResult, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { assetFields, positiveId } from '../../shared/http/schemas.ts';
import { validate } from '../../shared/http/validate.ts';

const request = {
  pathParameters: v.object({ assetId: positiveId('Asset ID is required') }),
  body: v.pipe(
    v.object(
      { name: assetFields.name, description: assetFields.description, groupId: assetFields.groupId },
      'Request body must be an object',
    ),
    v.check(
      (body) => body.name !== undefined || body.description !== undefined || body.groupId !== undefined,
      'Provide at least one of name, description or groupId',
    ),
  ),
};
const assets = assetRepository(documentClient, config.tableName);
const groups = assetGroupRepository(documentClient, config.tableName);

export const handler = middy<ValidatedEvent<typeof request>, ApiResult>()
  .use(apiKeyAuth({ organization: true, scope: 'write' }))
  .use(jsonBody())
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth, pathParameters, body }) =>
    json(200, await updateAsset(assets, groups, auth.orgId, pathParameters.assetId, body)),
  );
