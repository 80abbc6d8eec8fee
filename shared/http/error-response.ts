import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { AppError, type ErrorCode, type Issue, ServiceUnavailableError, TooManyRequestsError } from '../errors.ts';
import { logger } from '../logger.ts';
import { json } from './json.ts';

/** The status of each error code; a 500 is `INTERNAL_SERVER_ERROR`. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  SERVICE_UNAVAILABLE: 503,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
};

/** Flat fields of the spec, the wrapped `error` object real clients read, and the request id. */
const errorBody = (
  code: string,
  message: string,
  requestId: string,
  issues?: Issue[],
  data?: Record<string, unknown>,
) => ({
  code,
  message,
  issues: issues && issues.length > 0 ? issues : undefined,
  data,
  error: { code, message },
  requestId,
});

/** middy's own client errors (e.g. a body parser's 415/422) carry `statusCode` and `expose`. */
const isMiddyClientError = (error: unknown): boolean => {
  const status = error instanceof Error ? (error as Error & { statusCode?: unknown }).statusCode : undefined;
  return typeof status === 'number' && status >= 400 && status < 500;
};

export const toErrorResponse = (error: unknown, requestId: string): APIGatewayProxyResultV2 => {
  if (error instanceof ServiceUnavailableError) {
    logger.warn('Dependency unavailable', { requestId, error });
    const headers = { 'retry-after': String(error.retryAfterSeconds) };
    return json(503, errorBody(error.code, error.message, requestId), headers);
  }
  if (error instanceof AppError) {
    const body = errorBody(error.code, error.message, requestId, error.issues, error.data);
    const retryAfter = error instanceof TooManyRequestsError ? error.retryAfterSeconds : undefined;
    const bucket = error instanceof TooManyRequestsError ? error.bucket : undefined;
    return json(ERROR_STATUS[error.code], body, {
      ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
      ...(bucket === undefined
        ? {}
        : {
            'RateLimit-Limit': String(bucket.limit),
            'RateLimit-Remaining': String(bucket.remaining),
            'RateLimit-Reset': String(bucket.resetSeconds),
          }),
    });
  }
  if (isMiddyClientError(error))
    return json(400, errorBody('BAD_REQUEST', 'Request body must be valid JSON', requestId));
  logger.error('Unhandled error', { requestId, error });
  return json(500, errorBody('INTERNAL_SERVER_ERROR', 'Internal server error', requestId));
};

export const requestIdOf = (event: { requestContext?: { requestId?: string } } | undefined, context: Context): string =>
  event?.requestContext?.requestId ?? context.awsRequestId;

export const errorResponse = <E extends { requestContext?: { requestId?: string } }>(): MiddlewareObj<
  E,
  APIGatewayProxyResultV2
> => ({
  onError: async (request) => {
    request.response = toErrorResponse(request.error, requestIdOf(request.event, request.context));
  },
});
