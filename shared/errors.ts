export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'NOT_ACCEPTABLE'
  | 'CONFLICT'
  | 'GONE'
  | 'PAYLOAD_TOO_LARGE'
  | 'SERVICE_UNAVAILABLE'
  | 'UNPROCESSABLE_CONTENT'
  | 'TOO_MANY_REQUESTS';
export type Issue = { message: string; path?: string };

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  readonly issues: Issue[];
  /** Machine-readable details a client acts on, answered as the body's `data`. */
  readonly data: Record<string, unknown> | undefined;
  constructor(message: string, options?: ErrorOptions & { issues?: Issue[]; data?: Record<string, unknown> }) {
    super(message, options);
    this.issues = options?.issues ?? [];
    this.data = options?.data;
  }
}

/**
 * The base of the error answered with `code`. The name is spelled out: the bundles do not keep
 * class names (see infra/bundling.ts), and logs and stack traces show it.
 */
const withCode = <C extends ErrorCode>(code: C, name: string) =>
  class extends AppError {
    readonly code: C = code;
    override name = name;
  };

export class BadRequestError extends withCode('BAD_REQUEST', 'BadRequestError') {}
export class UnauthorizedError extends withCode('UNAUTHORIZED', 'UnauthorizedError') {}
export class ForbiddenError extends withCode('FORBIDDEN', 'ForbiddenError') {}
export class NotFoundError extends withCode('NOT_FOUND', 'NotFoundError') {}
export class ConflictError extends withCode('CONFLICT', 'ConflictError') {}
/** The client's `Accept` allows no media type the route answers in. */
export class NotAcceptableError extends withCode('NOT_ACCEPTABLE', 'NotAcceptableError') {}
/** What was asked for existed once and is no longer kept (a changelog position older than its retention). */
export class GoneError extends withCode('GONE', 'GoneError') {}
export class PayloadTooLargeError extends withCode('PAYLOAD_TOO_LARGE', 'PayloadTooLargeError') {}
/** A dependency (the table, a bucket) timed out, throttled or could not be reached; the client may retry. */
export class ServiceUnavailableError extends withCode('SERVICE_UNAVAILABLE', 'ServiceUnavailableError') {
  /** Seconds a client should wait before retrying (the `Retry-After` header). */
  readonly retryAfterSeconds = 2;
}
export class UnprocessableContentError extends withCode('UNPROCESSABLE_CONTENT', 'UnprocessableContentError') {}
/** The bucket a refusal came from (the `RateLimit-Limit`, `-Remaining` and `-Reset` headers). */
export type BucketState = { limit: number; remaining: number; resetSeconds: number };
export class TooManyRequestsError extends withCode('TOO_MANY_REQUESTS', 'TooManyRequestsError') {
  /** Seconds until a retry can succeed, when known (the `Retry-After` header). */
  readonly retryAfterSeconds: number | undefined;
  /** Set when no key's bucket answers for the refusal (a source address's budget of unknown keys). */
  readonly bucket: BucketState | undefined;
  constructor(message: string, options?: ErrorOptions & { retryAfterSeconds?: number; bucket?: BucketState }) {
    super(message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.bucket = options?.bucket;
  }
}
