export type ErrorCode = 'BAD_REQUEST' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT' | 'GONE';
export type Issue = { message: string; path?: string };

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  readonly issues: Issue[];
  constructor(message: string, options?: ErrorOptions & { issues?: Issue[] }) {
    super(message, options);
    this.name = new.target.name;
    this.issues = options?.issues ?? [];
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
