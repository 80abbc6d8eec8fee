import * as v from 'valibot';
import { ASSET_TYPES } from '../domain/allowlist/asset-types.ts';
import { MAX_CONTENT_LENGTH, MAX_NAME_LENGTH, MAX_QUERY_LENGTH, SLUG } from '../domain/core/limits.ts';
import { BadRequestError } from '../errors.ts';
import { jsonSchemaTwin } from '../schema-twin.ts';

export { MAX_CONTENT_LENGTH };

/** A path or query id: digits only, a positive safe integer; `required` answers an empty one. */
export const positiveId = (message: string, required = message) =>
  v.pipe(
    v.string(required),
    v.regex(/^[1-9]\d{0,15}$/, (issue) => (issue.input === '' ? required : message)),
    v.transform(Number),
    v.safeInteger(message),
  );

/** C0 controls, DEL and (with the `u` flag, which pairs surrogates first) unpaired surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const NOT_PLAIN = /[\u0000-\u001f\u007f\p{Cs}]/u;

/**
 * A string that may reach a key or an index value: no control characters, no unpaired surrogates
 * (checked on the input as sent, before any trim). The twin sits in `allOf`, so the pattern of an
 * outer pipe (a length rule) does not replace it in the API description.
 */
export const plainString = (message: string, field: string) =>
  v.pipe(
    v.string(message),
    v.check((text) => !NOT_PLAIN.test(text), `${field} must not contain control characters or unpaired surrogates`),
    jsonSchemaTwin({ allOf: [{ pattern: '^[^\\u0000-\\u001f\\u007f\\p{Cs}]*$' }] }),
  );

export const MAX_SLUG_LENGTH = 64;

/** An organization or brand slug, bounded before it becomes part of a key. */
export const slug = (field: string) =>
  v.pipe(
    plainString(`${field} must be a string`, field),
    v.nonEmpty(`${field} must not be empty`),
    v.maxLength(MAX_SLUG_LENGTH, `${field} must be at most ${MAX_SLUG_LENGTH} characters`),
  );

export const groupName = v.pipe(
  plainString('Group name is required', 'Group name'),
  v.trim(),
  v.check(
    (name) => name.length > 0 && [...name].length <= MAX_NAME_LENGTH,
    `Group name must be between 1 and ${MAX_NAME_LENGTH} characters`,
  ),
  // 1 to MAX_NAME_LENGTH code points once surrounding white space is trimmed.
  jsonSchemaTwin({ pattern: `^\\s*\\S(?:[\\s\\S]{0,${MAX_NAME_LENGTH - 2}}\\S)?\\s*$` }),
);

export const assetType = v.picklist(ASSET_TYPES, 'Invalid asset type provided');

/**
 * The optional copy of a path id that documented clients repeat in the body;
 * anything sent must name the same id, as a number or its digits.
 */
export const bodyIdMatches = (name: 'assetId' | 'groupId', pathId: number, body: unknown): void => {
  const sent = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (sent === undefined || sent === pathId || sent === String(pathId)) return;
  throw new BadRequestError(`Path parameter ${name} does not match body`, {
    issues: [{ message: `Path parameter ${name} does not match body`, path: `body.${name}` }],
  });
};

/** A `per_page` query parameter: an integer from 1 to `max`, `fallback` when absent. */
export const perPage = (max: number, fallback: number) => {
  const message = `per_page must be an integer between 1 and ${max}`;
  return v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, message),
      v.transform(Number),
      v.minValue(1, message),
      v.maxValue(max, message),
    ),
    String(fallback),
  );
};

/** The `groupId` filter of the asset listing: a group id, or -1 for ungrouped assets. */
export const groupFilter = v.pipe(
  v.string(),
  v.regex(/^(-1|[1-9]\d{0,15})$/, 'groupId must be a positive integer or -1'),
  v.transform((value) => (value === '-1' ? ('ungrouped' as const) : Number(value))),
);

/** The content of an asset check: absent and empty are both "content is required". */
export const checkContent = v.pipe(
  v.optional(v.string('content must be a string'), ''),
  v.trim(),
  v.nonEmpty('content is required'),
  v.maxLength(MAX_CONTENT_LENGTH, `content must be at most ${MAX_CONTENT_LENGTH} characters`),
);

/** An optional field that clients may also send as `null`; both arrive as `undefined`. */
export const nullable = <S extends v.GenericSchema>(schema: S) =>
  v.pipe(
    v.nullish(schema),
    v.transform((value) => value ?? undefined),
  );

export const MAX_CURSOR_LENGTH = 2048;

/** An opaque `next_page` token, bounded before it is decoded. */
export const cursorToken = v.pipe(
  v.string('next_page must be a string'),
  v.nonEmpty('next_page must not be empty'),
  v.maxLength(MAX_CURSOR_LENGTH, 'next_page is not a valid page token'),
);

/**
 * An optional cursor in a query string (`field` names it): absent, empty and `null` (what a
 * client's URL builder makes of a null cursor, never a cursor this service issues) all mean the
 * first page; anything else is bounded before it is decoded.
 */
export const queryCursor = (field: string) =>
  v.pipe(
    v.optional(v.string(`${field} must be a string`)),
    v.transform((text) => (text === undefined || text === '' || text === 'null' ? undefined : text)),
    v.check((text) => text === undefined || text.length <= MAX_CURSOR_LENGTH, `${field} is not a valid page token`),
  );

/** The `query` of a listing: a case-insensitive substring, matched by the store; bounded and plain. */
export const searchQuery = v.pipe(
  plainString('query must be a string', 'query'),
  v.maxLength(MAX_QUERY_LENGTH, `query must be at most ${MAX_QUERY_LENGTH} characters`),
);

/**
 * Text with no control characters but tab, line feed and carriage return, and no unpaired
 * surrogates: a surrogate is only accepted as the first half of a pair. Written without flags so
 * it reads the same as a JSON Schema pattern (with or without the `u` flag, where a pair is one
 * character and the negated class takes it).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it names the control characters it rejects.
const PRINTABLE = /^(?:[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;

/** A string field with a length bound and only printable text (see PRINTABLE). */
export const boundedText = (field: string, min: number, max: number) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.regex(PRINTABLE, `${field} must not hold control characters or unpaired surrogates`),
    v.minLength(min, min > 1 ? `${field} must be at least ${min} characters` : `${field} is required`),
    v.maxLength(max, `${field} must be at most ${max} characters`),
  );

/** `organizationSlug`, as the organization a user key acts for. */
export const organizationSlug = v.pipe(
  v.string('organizationSlug must be a string'),
  v.regex(SLUG, 'organizationSlug must be an organization slug'),
);
