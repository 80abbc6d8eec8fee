import type { MiddlewareObj } from '@middy/core';
import { BadRequestError } from '../errors.ts';

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Parses a JSON body whatever its Content-Type (clients omit it). With `optional`, an empty
 * body becomes `undefined` instead of a 400.
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
      throw new BadRequestError(`Request body must not exceed ${maxBytes} bytes`);
    }
    try {
      event.body = JSON.parse(text);
    } catch (cause) {
      throw new BadRequestError('Request body must be valid JSON', { cause });
    }
  },
});
