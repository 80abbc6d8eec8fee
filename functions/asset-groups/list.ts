import middy from '@middy/core';
import { config } from '../../shared/config.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { listGroups } from '../../shared/domain/groups.ts';
import type { ApiResult, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';

const groups = assetGroupRepository(documentClient, config.tableName);

export const handler = middy<ValidatedEvent<object>, ApiResult>()
  .use(apiKeyAuth({ organization: true, scope: 'read' }))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth }) => json(200, { groups: await listGroups(groups, auth.orgId) }));
