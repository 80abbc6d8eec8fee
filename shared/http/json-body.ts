import type { MiddlewareObj } from '@middy/core';
import { BadRequestError, PayloadTooLargeError } from '../errors.ts';

export const MAX_BODY_BYTES = 64 * 1024;

const NOT_UTF8 = 'Request body must be valid UTF-8';
/** Throws on a byte sequence that is not UTF-8 instead of putting U+FFFD in its place, which would be stored. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const utf8 = (bytes: Buffer): string => {
  try {
    return UTF8.decode(bytes);
  } catch (cause) {
    throw new BadRequestError(NOT_UTF8, { cause });
  }
};
/** A body passed as text is UTF-16: an unpaired surrogate is what invalid UTF-8 became on the way. */
const LONE_SURROGATE = /\p{Cs}/u;
const wellFormed = (text: string): string => {
  if (LONE_SURROGATE.test(text)) throw new BadRequestError(NOT_UTF8);
  return text;
};

/**
 * Parses a JSON body whatever its Content-Type (clients omit it); every body of the API is a JSON
 * object, so an array or a scalar is a 400, and so is a body that is not UTF-8 (sent as text or
 * base64). With `optional`, an empty body becomes `undefined` instead of a 400.
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
    const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : undefined;
    if ((bytes?.length ?? Buffer.byteLength(raw, 'utf8')) > maxBytes) {
      throw new PayloadTooLargeError(`Request body must not exceed ${maxBytes} bytes`);
    }
    const text = bytes === undefined ? wellFormed(raw) : utf8(bytes);
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
