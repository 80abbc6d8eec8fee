import middy from '@middy/core';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { deleteGroup } from '../../shared/domain/groups.ts';
import type { ApiResult, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { positiveId } from '../../shared/http/schemas.ts';
import { validate } from '../../shared/http/validate.ts';

const request = { pathParameters: v.object({ groupId: positiveId('Group ID must be a positive integer') }) };
const groups = assetGroupRepository(documentClient, config.tableName);

export const handler = middy<ValidatedEvent<typeof request>, ApiResult>()
  .use(apiKeyAuth({ organization: true, scope: 'write' }))
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth, pathParameters }) =>
    json(200, await deleteGroup(groups, auth.orgId, pathParameters.groupId)),
  );
