import type { MiddlewareObj } from '@middy/core';
import { BadRequestError, PayloadTooLargeError } from '../errors.ts';

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Parses a JSON body whatever its Content-Type (clients omit it); every body of the API is a JSON
 * object, so an array or a scalar is a 400. With `optional`, an empty body becomes `undefined`
 * instead of a 400.
 */
export const jsonBody = <E extends { body?: unknown; isBase64Encoded?: boolean }>({
  optional = false,
  maxBytes = MAX_BODY_BYTES,
} = {}): MiddlewareObj<E> => ({
  before: async ({ event }) => {
    const raw = event.body;
    if (typeof raw !== 'string' || raw.trim() === '') {
      if (optional) {
        event.body = undefined;
        return;
      }
      throw new BadRequestError('Request body is required');
    }
    const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    if (Buffer.byteLength(text, 'utf8') > maxBytes) {
      throw new PayloadTooLargeError(`Request body must not exceed ${maxBytes} bytes`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      throw new BadRequestError('Request body must be valid JSON', { cause });
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new BadRequestError('Request body must be a JSON object');
    }
    event.body = parsed;
  },
});
