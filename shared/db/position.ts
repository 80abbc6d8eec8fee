import { INVALID_CURSOR } from '../domain/core/cursor.ts';
import { BadRequestError } from '../errors.ts';

/**
 * Reads back a list position (the index key of the last item read, as JSON text). Only the key
 * attributes of the index it was issued for are accepted, each a string; anything else is 400.
 */
export const decodePosition = (text: string, fields: readonly string[]): Record<string, string> => {
  let position: unknown;
  try {
    position = JSON.parse(text);
  } catch (cause) {
    throw new BadRequestError(INVALID_CURSOR, { cause });
  }
  const valid =
    typeof position === 'object' &&
    position !== null &&
    Object.entries(position).every(([name, value]) => fields.includes(name) && typeof value === 'string');
  if (!valid) throw new BadRequestError(INVALID_CURSOR);
  return position as Record<string, string>;
};
