import middy from '@middy/core';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { legacyOrganizationMetrics, metricsDate, utcDay } from '../../shared/domain/metrics.ts';
import type { ApiResult, Auth, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { validate } from '../../shared/http/validate.ts';

/** RFC 9745 `Deprecation` (a structured date: the endpoint has been deprecated since then) and its successor. */
const DEPRECATED_SINCE = Date.UTC(2026, 0, 1) / 1000;
const SELF = '/public/getOrganizationMetrics';
const SUCCESSOR = '/organization/metrics';

const request = {
  body: v.object(
    {
      organizationSlug: v.pipe(v.string('organizationSlug is required'), v.nonEmpty('organizationSlug is required')),
      brandSlug: v.nullish(v.pipe(v.string('brandSlug must be a string'), v.nonEmpty('brandSlug must not be empty'))),
      startDate: v.nullish(metricsDate),
      endDate: v.nullish(metricsDate),
    },
    'organizationSlug is required',
  ),
};
const stores = {
  metrics: metricsRepository(documentClient, config.tableName),
  directory: directoryRepository(documentClient, config.tableName),
};

/** Marks every response, errors included, so clients on any path learn of the successor. */
const deprecation = <E extends { rawPath?: string }>(): middy.MiddlewareObj<E, ApiResult> => {
  const mark: middy.MiddlewareFn<E, ApiResult> = async ({ event, response }) => {
    if (typeof response !== 'object' || response === null) return;
    const rawPath = event.rawPath ?? SELF;
    const successor = rawPath.endsWith(SELF) ? `${rawPath.slice(0, -SELF.length)}${SUCCESSOR}` : `/v2${SUCCESSOR}`;
    response.headers = {
      ...response.headers,
      Deprecation: `@${DEPRECATED_SINCE}`,
      Link: `<${successor}>; rel="successor-version"`,
    };
  };
  return { after: mark, onError: mark };
};

export const handler = middy<ValidatedEvent<typeof request, Auth>, ApiResult>()
  .use(deprecation()) // first, so its after and onError run last, on the final response
  .use(apiKeyAuth({ organization: false, scope: 'read' }))
  .use(jsonBody())
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ auth, body }) => {
    const query = {
      organizationSlug: body.organizationSlug,
      brandSlug: body.brandSlug ?? undefined,
      startDate: body.startDate ?? undefined,
      endDate: body.endDate ?? undefined,
    };
    return json(200, await legacyOrganizationMetrics(stores, auth, query, utcDay(Date.now())));
  });
