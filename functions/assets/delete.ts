import middy from '@middy/core';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { removeAsset } from '../../shared/domain/assets.ts';
import { BadRequestError } from '../../shared/errors.ts';
import type { ApiResult, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { positiveId } from '../../shared/http/schemas.ts';
import { validate } from '../../shared/http/validate.ts';

const request = {
  pathParameters: v.object({ assetId: positiveId('Asset ID is required') }),
  // Documented clients repeat the id in the body; generated clients send no body at all.
  body: v.optional(v.object({ assetId: v.optional(v.unknown()) }, 'Request body must be an object')),
};
const assets = assetRepository(documentClient, config.tableName);

export const handler = middy<ValidatedEvent<typeof request>, ApiResult>()
  .use(apiKeyAuth({ organization: true, scope: 'write' }))
  .use(jsonBody({ optional: true }))
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth, pathParameters, body }) => {
    const { assetId } = pathParameters;
    if (body?.assetId !== undefined && body.assetId !== assetId && body.assetId !== String(assetId)) {
      throw new BadRequestError('assetId in the body must match the path');
    }
    return json(200, { success: true, id: await removeAsset(assets, auth.orgId, assetId) });
  });
