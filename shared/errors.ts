export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
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
    this.name = new.target.name;
    this.issues = options?.issues ?? [];
    this.data = options?.data;
  }
}

export class BadRequestError extends AppError {
  readonly code = 'BAD_REQUEST';
}
export class UnauthorizedError extends AppError {
  readonly code = 'UNAUTHORIZED';
}
export class ForbiddenError extends AppError {
  readonly code = 'FORBIDDEN';
}
export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
}
export class ConflictError extends AppError {
  readonly code = 'CONFLICT';
}
/** What was asked for existed once and is no longer kept (a changelog position older than its retention). */
export class GoneError extends AppError {
  readonly code = 'GONE';
}
export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
}
/** A dependency (the table, a bucket) timed out, throttled or could not be reached; the client may retry. */
export class ServiceUnavailableError extends AppError {
  readonly code = 'SERVICE_UNAVAILABLE';
  /** Seconds a client should wait before retrying (the `Retry-After` header). */
  readonly retryAfterSeconds = 2;
}
export class UnprocessableContentError extends AppError {
  readonly code = 'UNPROCESSABLE_CONTENT';
}
export class TooManyRequestsError extends AppError {
  readonly code = 'TOO_MANY_REQUESTS';
}
