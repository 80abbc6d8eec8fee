import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { metrics, recordResponse } from '../metrics.ts';
import type { ApiResult, Auth } from './api-event.ts';

type Observed = {
  routeKey?: string;
  requestContext?: { requestId?: string; http?: { method?: string } };
  auth?: Auth;
};

const statusOf = (response: ApiResult | null | undefined): number =>
  typeof response === 'object' && response !== null ? (response.statusCode ?? 200) : 200;

/** The `code` of an error body this service wrote; nothing else of a response is ever logged. */
const errorCodeOf = (response: ApiResult | null | undefined): string | undefined => {
  if (typeof response !== 'object' || response === null || typeof response.body !== 'string') return undefined;
  try {
    const { code } = JSON.parse(response.body) as { code?: unknown };
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
};

/**
 * One access line and the endpoint figures per request, written once the final response is
 * known (this runs last). The line holds who and what was asked and how it ended; never a
 * header, a query string, a body or a cursor. A 5xx also has the detailed line errorResponse
 * wrote with the error itself.
 */
const accessLog = <E extends Observed>(): MiddlewareObj<E, ApiResult> => {
  const startedAt = new WeakMap<object, number>();
  const done = (request: Request<E, ApiResult>) => {
    const started = startedAt.get(request) ?? performance.now();
    const latencyMs = Math.round((performance.now() - started) * 100) / 100;
    const status = statusOf(request.response);
    const { event, context } = request;
    recordResponse(config.routeName ?? context.functionName, status, latencyMs);
    const line = {
      route: event.routeKey,
      method: event.requestContext?.http?.method,
      status,
      latencyMs,
      requestId: event.requestContext?.requestId,
      ...(event.auth?.kind === 'organization' ? { orgId: event.auth.orgId } : {}),
      ...(event.auth?.kind === 'user' ? { userId: event.auth.userId } : {}),
      ...(status >= 400 ? { errorCode: errorCodeOf(request.response) } : {}),
    };
    if (status >= 500) logger.error('access', line);
    else logger.info('access', line);
  };
  return {
    before: (request) => {
      startedAt.set(request, performance.now());
    },
    after: done,
    onError: done,
  };
};

/**
 * Logger context (Lambda request id, cold start, X-Ray trace id on every line), metrics
 * publishing, and the access line, in the order middy needs: first in the chain, so the access
 * line runs after every other middleware and before the context is cleared and the metrics are
 * published.
 */
export const telemetry = <E extends Observed>() => [
  injectLambdaContext(logger, { resetKeys: true }),
  logMetrics(metrics),
  accessLog<E>(),
];
