/** Bounds of what clients may store, shared by the API, the activity feed and the local fixtures. */
export const MAX_CONTENT_LENGTH = 4096;
/** Group and asset names. */
export const MAX_NAME_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 2048;
/** Search text of a listing. */
export const MAX_QUERY_LENGTH = 256;

/** Organization and brand slugs: lower-case letters, digits and hyphens, 1 to 63 characters, not starting with a hyphen. */
export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
