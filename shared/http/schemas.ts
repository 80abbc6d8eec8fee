import * as v from 'valibot';
import { ASSET_TYPES } from '../domain/asset-types.ts';
import { EXPORT_STATUSES } from '../domain/check/export.ts';
import { VERSION_PATTERN } from '../domain/check/verdicts.ts';
import {
  MAX_CONTENT_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_QUERY_LENGTH,
  SLUG,
} from '../domain/limits.ts';
import { metricsDate } from '../domain/metrics.ts';
import { BadRequestError } from '../errors.ts';
import { jsonSchemaTwin } from '../schema-twin.ts';

export { MAX_CONTENT_LENGTH };

/** A path or query id: digits only, a positive safe integer. */
export const positiveId = /* @__NO_SIDE_EFFECTS__ */ (message: string) =>
  v.pipe(v.string(message), v.regex(/^[1-9]\d{0,15}$/, message), v.transform(Number), v.safeInteger(message));

/** C0 controls, DEL and (with the `u` flag, which pairs surrogates first) unpaired surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const NOT_PLAIN = /[\u0000-\u001f\u007f\p{Cs}]/u;

/**
 * A string that may reach a key or an index value: no control characters, no unpaired surrogates
 * (checked on the input as sent, before any trim). The twin sits in `allOf`, so the pattern of an
 * outer pipe (a length rule) does not replace it in the API description.
 */
export const plainString = /* @__NO_SIDE_EFFECTS__ */ (message: string, field: string) =>
  v.pipe(
    v.string(message),
    v.check((text) => !NOT_PLAIN.test(text), `${field} must not contain control characters or unpaired surrogates`),
    jsonSchemaTwin({ allOf: [{ pattern: '^[^\\u0000-\\u001f\\u007f\\p{Cs}]*$' }] }),
  );

export const MAX_SLUG_LENGTH = 64;

/** An organization or brand slug, bounded before it becomes part of a key. */
export const slug = /* @__NO_SIDE_EFFECTS__ */ (field: string) =>
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

const optionalText = /* @__NO_SIDE_EFFECTS__ */ (field: string, max: number) =>
  v.pipe(
    plainString(`${field} must be a string`, field),
    v.maxLength(max, `${field} must be at most ${max} characters`),
  );

/** A group id in a body: a positive integer, or null for "no group". */
export const bodyGroupId = v.optional(
  v.nullable(
    v.pipe(v.number('Invalid group ID'), v.safeInteger('Invalid group ID'), v.minValue(1, 'Invalid group ID')),
  ),
);

export const assetFields = {
  // Absent, like empty, is "Content is required" (a missing key would otherwise get the object's message).
  content: v.pipe(
    v.optional(plainString('Content is required', 'content'), ''),
    v.trim(),
    v.nonEmpty('Content is required'),
    v.maxLength(MAX_CONTENT_LENGTH, `content must be at most ${MAX_CONTENT_LENGTH} characters`),
  ),
  type: v.pipe(
    v.nullish(assetType),
    v.transform((type) => type ?? undefined),
  ),
  name: v.optional(optionalText('name', MAX_NAME_LENGTH)),
  description: v.optional(v.nullable(optionalText('description', MAX_DESCRIPTION_LENGTH))),
  groupId: bodyGroupId,
};

/** The body of POST /organization/assets. */
export const MAX_ASSETS_PER_REQUEST = 1000;
export const addAssetsBody = v.object(
  {
    assets: v.pipe(
      v.array(v.object(assetFields, 'Each asset must be an object'), 'assets must be an array'),
      v.minLength(1, 'At least one asset is required'),
      v.maxLength(MAX_ASSETS_PER_REQUEST, `Maximum ${MAX_ASSETS_PER_REQUEST} assets allowed per request`),
    ),
  },
  'Request body must be an object with an assets array',
);

/**
 * The optional copy of a path id that documented clients repeat in the body (SPEC-EXTENSIONS §0);
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
export const perPage = /* @__NO_SIDE_EFFECTS__ */ (max: number, fallback: number) => {
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
export const nullable = /* @__NO_SIDE_EFFECTS__ */ <S extends v.GenericSchema>(schema: S) =>
  v.pipe(
    v.nullish(schema),
    v.transform((value) => value ?? undefined),
  );

export const MAX_CURSOR_LENGTH = 2048;

/** An opaque `next_page` token, bounded before it is decoded. */
export const cursorToken = v.pipe(
  v.string(),
  v.nonEmpty('next_page must not be empty'),
  v.maxLength(MAX_CURSOR_LENGTH, 'next_page is not a valid page token'),
);

/** The `query` of a listing: a case-insensitive substring, matched by the store; bounded and plain. */
export const searchQuery = v.pipe(
  plainString('query must be a string', 'query'),
  v.maxLength(MAX_QUERY_LENGTH, `query must be at most ${MAX_QUERY_LENGTH} characters`),
);

/** A string field with a length bound and no control characters but tab, line feed and carriage return. */
export const boundedText = /* @__NO_SIDE_EFFECTS__ */ (field: string, min: number, max: number) =>
  v.pipe(
    v.string(`${field} must be a string`),
    // biome-ignore lint/suspicious/noControlCharactersInRegex: it names the control characters it rejects.
    v.regex(/^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$/, `${field} must not hold control characters`),
    v.minLength(min, min > 1 ? `${field} must be at least ${min} characters` : `${field} is required`),
    v.maxLength(max, `${field} must be at most ${max} characters`),
  );

/** `organizationSlug`, as the organization a user key acts for. */
export const organizationSlug = v.pipe(
  v.string('organizationSlug must be a string'),
  v.regex(SLUG, 'organizationSlug must be an organization slug'),
);

const BULK_PER_PAGE = 'per_page must be an integer between 1 and 10000';
/** The `per_page` of the verdict feeds clients copy in bulk: a JSON integer from 1 to 10,000. */
const bulkPerPage = /* @__NO_SIDE_EFFECTS__ */ (fallback: number) =>
  v.optional(
    v.pipe(
      v.number(BULK_PER_PAGE),
      v.integer(BULK_PER_PAGE),
      v.minValue(1, BULK_PER_PAGE),
      v.maxValue(10_000, BULK_PER_PAGE),
    ),
    fallback,
  );
const VERSION = 'since must be a version from GET /asset/blocklist/version or POST /asset/changelog';

/** The body of POST /asset/changelog. */
export const changelogBody = v.object(
  {
    since: v.pipe(v.string(VERSION), v.regex(VERSION_PATTERN, VERSION)),
    type: v.optional(assetType),
    per_page: bulkPerPage(1000),
    next_page: v.optional(
      v.pipe(v.string('next_page must be a string'), v.nonEmpty('next_page must not be empty'), v.maxLength(128)),
    ),
  },
  'Request body must be an object with a since version',
);

/** The body of POST /asset/list: `type` is required, the dates are metrics bounds (read as their UTC day). */
export const verdictListBody = v.object(
  {
    type: assetType,
    status: v.optional(v.picklist(EXPORT_STATUSES, `status must be one of ${EXPORT_STATUSES.join(', ')}`), 'BLOCKED'),
    startDate: v.optional(metricsDate),
    endDate: v.optional(metricsDate),
    per_page: bulkPerPage(100),
    next_page: v.optional(cursorToken),
  },
  'Request body must be an object with a type',
);
