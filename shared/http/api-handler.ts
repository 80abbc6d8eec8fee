import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { extendDeadline, invocationLimit, requestDeadline, withDeadline } from '../deadline.ts';
import type { KeyResolver, Scope } from '../domain/account/api-keys.ts';
import type { RateClass } from '../domain/account/rate-limits.ts';
import { tracingMiddleware } from '../tracing.ts';
import type { ApiResult, Auth, Context, OrganizationAuth, RequestSchema, ValidatedEvent } from './api-event.ts';
import { apiKeyAuth } from './api-key-auth.ts';
import { type Deprecation, deprecation } from './deprecation.ts';
import { errorResponse } from './error-response.ts';
import { jsonBody } from './json-body.ts';
import { containerRateLimits, type RateLimitOptions, rateLimit } from './rate-limit.ts';
import { telemetry } from './telemetry.ts';
import { validate } from './validate.ts';

/** Who may call: organization keys only, or any valid key (organization or user). */
export type Caller = 'organization' | 'any';
type AuthOf<C extends Caller> = C extends 'organization' ? OrganizationAuth : Auth;

export type ApiHandlerOptions<R extends RequestSchema, C extends Caller> = {
  request: R;
  caller: C;
  scope: Scope;
  /**
   * The route's rate-limit class, declared here rather than passed in the
   * environment so the handler limits the same way in Lambda, the local gateway and tests; it
   * must equal the route table's `rateClass` (test/unit/http/rate-limit.test.ts).
   */
  rateClass: RateClass;
  keys: KeyResolver;
  /** The buckets and stage defaults; the container's own (`containerRateLimits`) unless a test passes others. */
  limits?: Omit<RateLimitOptions, 'rateClass'>;
  /** How a JSON body is read; parsed only when `request.body` is declared. */
  body?: { optional?: boolean; maxBytes?: number };
  deprecation?: Deprecation;
  /** The key may also come as the password of HTTP Basic (TAXII clients). */
  basicAuth?: boolean;
  /**
   * Reshapes every answer of the route, errors included (TAXII's media type and error resources):
   * runs right after telemetry, so its `after`/`onError` see the shaped error and the access line sees its result.
   */
  answers?: MiddlewareObj;
  /**
   * Request budgets the validated request adds to its deadline, for work that grows with what it
   * carries (a bulk add); the function's timeout bounds it still.
   */
  extraBudgets?: (event: ValidatedEvent<R, AuthOf<C>>) => number;
};

export type ApiHandler = (event: never, context: Context) => Promise<ApiResult>;

/** What a built handler was declared with, minus its dependencies: the API description reads it. */
export type HandlerDeclaration = Omit<
  ApiHandlerOptions<RequestSchema, Caller>,
  'keys' | 'limits' | 'extraBudgets' | 'answers'
>;
const declarations = new WeakMap<object, HandlerDeclaration>();
export const declarationOf = (handler: object): HandlerDeclaration | undefined => declarations.get(handler);

/**
 * The one middy chain of every HTTP handler, in its only correct order: telemetry (first, so
 * its access line and metrics see the final response), the handler's X-Ray subsegment in a
 * traced function (shared/tracing.ts), deprecation headers
 * (first, so they mark the final response, errors included), key check (a bad key is 401
 * before the body is parsed), the key's rate limit (a 429 costs no body parsing), JSON body,
 * validation, and error shaping (last, so middy runs its onError first). The whole chain, key
 * lookup included, runs under the request's one deadline for its calls to the table
 * (shared/deadline.ts).
 */
export const apiHandler = <R extends RequestSchema, C extends Caller>(
  options: ApiHandlerOptions<R, C>,
  handle: (event: ValidatedEvent<R, AuthOf<C>>, context: Context) => Promise<ApiResult>,
) => {
  const chain = middy<ValidatedEvent<R, AuthOf<C>>, ApiResult>().use(telemetry());
  // Written out in full: a bundle built with tracing off drops the tracer (shared/tracing.ts).
  if (process.env.POWERTOOLS_TRACE_ENABLED !== 'false') chain.use(tracingMiddleware());
  if (options.answers) chain.use(options.answers as MiddlewareObj<ValidatedEvent<R, AuthOf<C>>, ApiResult>);
  if (options.deprecation) chain.use(deprecation(options.deprecation));
  chain.use(
    apiKeyAuth(
      { organization: options.caller === 'organization', scope: options.scope, basic: options.basicAuth === true },
      options.keys,
    ),
  );
  chain.use(rateLimit({ rateClass: options.rateClass, ...(options.limits ?? containerRateLimits()) }));
  if (options.request.body) chain.use(jsonBody(options.body));
  chain.use(validate(options.request));
  const { extraBudgets } = options;
  if (extraBudgets) chain.use({ before: (request) => extendDeadline(extraBudgets(request.event)) });
  const chained = chain.use(errorResponse()).handler(handle);
  const handler = (event: Parameters<typeof chained>[0], context: Context): Promise<ApiResult> => {
    const remainingMs = context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
    return withDeadline(
      requestDeadline(
        remainingMs,
        (event as { requestContext?: { timeEpoch?: number } }).requestContext?.timeEpoch ?? Date.now(),
      ),
      () => chained(event, context),
      invocationLimit(remainingMs),
    );
  };
  const { request, caller, scope, rateClass, body, deprecation: deprecated } = options;
  declarations.set(handler, { request, caller, scope, rateClass, body, deprecation: deprecated });
  return handler;
};

/**
 * The chain of the routes that answer without a key (the API description and the pages): the
 * same telemetry, so each request writes its access line and its endpoint figures, the same
 * tracing, and the same error shaping; no key check, no body, no validation, and no declaration (they are public).
 */
export const publicHandler = (handle: (event: APIGatewayProxyEventV2, context: Context) => Promise<ApiResult>) => {
  const chain = middy<APIGatewayProxyEventV2, ApiResult>().use(telemetry());
  if (process.env.POWERTOOLS_TRACE_ENABLED !== 'false') chain.use(tracingMiddleware());
  return chain.use(errorResponse()).handler(handle);
};
