import * as v from 'valibot';
import { MAX_CONTENT_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from '../domain/core/limits.ts';
import { assetType, plainString } from './schemas.ts';

/*
 * The fields of an asset in a request body, apart from the schemas every route shares: only the
 * routes that take assets load them.
 */

const optionalText = (field: string, max: number) =>
  v.pipe(
    plainString(`${field} must be a string`, field),
    v.maxLength(max, `${field} must be at most ${max} characters`),
  );

/** A group id in a body: a positive integer, or null for "no group". */
const bodyGroupId = v.optional(
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
