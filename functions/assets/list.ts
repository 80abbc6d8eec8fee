import middy from '@middy/core';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { listAssets } from '../../shared/domain/assets.ts';
import { cursorCodec } from '../../shared/domain/cursor.ts';
import type { ApiResult, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { assetType } from '../../shared/http/schemas.ts';
import { validate } from '../../shared/http/validate.ts';

const request = {
  queryStringParameters: v.object({
    type: v.optional(assetType),
    groupId: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^(-1|[1-9]\d{0,15})$/, 'groupId must be a positive integer or -1'),
        v.transform((value) => (value === '-1' ? ('ungrouped' as const) : Number(value))),
      ),
    ),
    query: v.optional(
      v.pipe(
        v.string(),
        v.maxLength(256, 'query must be at most 256 characters'),
        v.transform((value) => value.toLowerCase()),
      ),
    ),
    per_page: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^\d{1,4}$/, 'per_page must be an integer between 1 and 1000'),
        v.transform(Number),
        v.minValue(1, 'per_page must be an integer between 1 and 1000'),
        v.maxValue(1000, 'per_page must be an integer between 1 and 1000'),
      ),
      '100',
    ),
    next_page: v.optional(v.pipe(v.string(), v.nonEmpty('next_page must not be empty'))),
  }),
};
const assets = assetRepository(documentClient, config.tableName);
const groups = assetGroupRepository(documentClient, config.tableName);
const cursors = cursorCodec(config.cursorSecret);

export const handler = middy<ValidatedEvent<typeof request>, ApiResult>()
  .use(apiKeyAuth({ organization: true, scope: 'read' }))
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth, queryStringParameters: q }) => {
    const filter = { type: q.type, groupId: q.groupId, query: q.query === '' ? undefined : q.query };
    return json(200, await listAssets(assets, groups, cursors, auth.orgId, filter, q.per_page, q.next_page));
  });
