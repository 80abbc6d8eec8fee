import middy from '@middy/core';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { addAssets } from '../../shared/domain/assets.ts';
import type { ApiResult, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { assetFields } from '../../shared/http/schemas.ts';
import { validate } from '../../shared/http/validate.ts';

const MAX_ASSETS = 1000;
const request = {
  body: v.object(
    {
      assets: v.pipe(
        v.array(v.object(assetFields, 'Each asset must be an object'), 'assets must be an array'),
        v.minLength(1, 'assets must hold between 1 and 1000 assets'),
        v.maxLength(MAX_ASSETS, 'assets must hold between 1 and 1000 assets'),
      ),
    },
    'Request body must be an object with an assets array',
  ),
};
const assets = assetRepository(documentClient, config.tableName);
const groups = assetGroupRepository(documentClient, config.tableName);

export const handler = middy<ValidatedEvent<typeof request>, ApiResult>()
  .use(apiKeyAuth({ organization: true, scope: 'write' }))
  .use(jsonBody({ maxBytes: 6 * 1024 * 1024 })) // 1,000 assets do not fit the default 64 KiB; 6 MB is Lambda's own limit
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth, body }) => json(200, await addAssets(assets, groups, auth.orgId, body.assets)));
