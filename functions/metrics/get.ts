import middy from '@middy/core';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { metricsDate, organizationMetrics, utcDay } from '../../shared/domain/metrics.ts';
import type { ApiResult, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { validate } from '../../shared/http/validate.ts';

const request = {
  queryStringParameters: v.object({
    brandSlug: v.optional(v.pipe(v.string(), v.nonEmpty('brandSlug must not be empty'))),
    startDate: v.optional(metricsDate),
    endDate: v.optional(metricsDate),
  }),
};
const stores = {
  metrics: metricsRepository(documentClient, config.tableName),
  directory: directoryRepository(documentClient, config.tableName),
};

export const handler = middy<ValidatedEvent<typeof request>, ApiResult>()
  .use(apiKeyAuth({ organization: true, scope: 'read' }))
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth, queryStringParameters }) =>
    json(200, await organizationMetrics(stores, auth.orgId, queryStringParameters, utcDay(Date.now()))),
  );
