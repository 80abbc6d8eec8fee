import middy from '@middy/core';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { createGroup } from '../../shared/domain/groups.ts';
import type { ApiResult, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { groupName } from '../../shared/http/schemas.ts';
import { validate } from '../../shared/http/validate.ts';

const request = { body: v.object({ name: groupName }, 'Group name is required') };
const groups = assetGroupRepository(documentClient, config.tableName);

export const handler = middy<ValidatedEvent<typeof request>, ApiResult>()
  .use(apiKeyAuth({ organization: true, scope: 'write' }))
  .use(jsonBody())
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth, body }) => {
    const { id, name } = await createGroup(groups, auth.orgId, body.name);
    return json(200, { id, name });
  });
