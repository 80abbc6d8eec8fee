import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { recordResponse } from '../metrics.ts';
import type { ApiResult, Auth } from './api-event.ts';

type Observed = {
  routeKey?: string;
  requestContext?: { requestId?: string };
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
 * The check class: the routes that take most of the requests. The access lines of their
 * successful requests are sampled (`config.accessLogSampleRate`); their endpoint figures, their
 * errors and every line of the other routes are complete.
 */
export const SAMPLED_ROUTES: ReadonlySet<string> = new Set(['check-asset', 'get-blocklist-version']);

/**
 * One access line and the endpoint figures per request, written once the final response is
 * known (this runs last). The line holds who and what was asked and how it ended; never a
 * header, a query string, a body or a cursor. A 5xx also has the detailed line errorResponse
 * wrote with the error itself. Where lines are sampled, the endpoint figures still count every
 * request.
 */
const accessLog = <E extends Observed>(sampleRate: number): MiddlewareObj<E, ApiResult> => {
  const startedAt = new WeakMap<object, number>();
  const done = (request: Request<E, ApiResult>) => {
    const started = startedAt.get(request) ?? performance.now();
    const latencyMs = Math.round((performance.now() - started) * 100) / 100;
    const status = statusOf(request.response);
    const { event, context } = request;
    const route = config.routeName ?? context.functionName;
    recordResponse(route, status, latencyMs);
    const sampled = status >= 200 && status < 300 && SAMPLED_ROUTES.has(route) && sampleRate < 1;
    // Math.random() is never below 0: at the rate 0 no successful check writes a line.
    if (sampled && Math.random() >= sampleRate) return;
    const line = {
      route: event.routeKey,
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
 * Logger context (Lambda request id, cold start, X-Ray trace id on every line) and the access
 * line with the endpoint figures, in the order middy needs: first in the chain, so the access
 * line runs after every other middleware and before the context is cleared. The figures are
 * published by `recordResponse`, batched across invocations, not at the end of each one.
 */
export const telemetry = <E extends Observed>() => [
  injectLambdaContext(logger, { resetKeys: true }),
  accessLog<E>(config.accessLogSampleRate),
];
