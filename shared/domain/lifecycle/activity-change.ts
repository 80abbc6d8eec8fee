import * as v from 'valibot';
import { BadRequestError } from '../../errors.ts';
import { ASSET_TYPES } from '../allowlist/asset-types.ts';
import { parseInstant } from '../core/dates.ts';
import { MAX_CONTENT_LENGTH, SLUG } from '../core/limits.ts';

export const ACTIVITY_KINDS = ['report', 'threat', 'takedown'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
const THREAT_STATUSES = ['PENDING', 'BLOCKED', 'APPROVED', 'AUTO_APPROVED', 'REJECTED'] as const;
export type ThreatStatus = (typeof THREAT_STATUSES)[number];
export const TAKEDOWN_STATUSES = ['TODO', 'IN_PROGRESS', 'PENDING_INPUT', 'COMPLETED', 'CANCELLED'] as const;
export type TakedownStatus = (typeof TAKEDOWN_STATUSES)[number];
/** Earlier names of two takedown statuses, still accepted from ingests and fixtures (and found in older items). */
export const LEGACY_TAKEDOWN_STATUSES: Readonly<Record<string, TakedownStatus>> = {
  FILED: 'TODO',
  FAILED: 'CANCELLED',
};
/** Whether a takedown's target is still up, as its last liveness check found it. */
export const LIVENESS_STATUSES = ['ALIVE', 'DEAD', 'UNKNOWN'] as const;
export type LivenessStatus = (typeof LIVENESS_STATUSES)[number];
export const REPORT_STATUSES = ['TODO', 'IN_PROGRESS', 'CLOSED'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const REVIEW_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Threats in these statuses are counted as blocked, and block their content in the check index. */
export const COUNTED_THREAT_STATUSES: ReadonlySet<ThreatStatus> = new Set(['BLOCKED', 'APPROVED', 'AUTO_APPROVED']);

/**
 * Brands one record may name. A change of a record commits with every counter it moves (one per
 * brand of its old and of its new state), all at once; the store's tests check that a record at
 * this bound, changing all its brands, still commits as one.
 */
export const MAX_BRANDS_PER_RECORD = 40;
const MAX_ID_LENGTH = 256;

/** NUL and unpaired surrogates (the `u` flag pairs surrogates first): no stored text holds them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the character it rejects.
const UNSTORABLE = /[\u0000\p{Cs}]/u;
const storable = (field: string) =>
  v.check((value: string) => !UNSTORABLE.test(value), `${field} must not hold NUL or unpaired surrogates`);

const text = (field: string, max: number) =>
  v.pipe(
    v.string(`${field} is required`),
    storable(field),
    v.nonEmpty(`${field} is required`),
    v.maxLength(max, `${field} must be at most ${max} characters`),
  );

/** Stored and compared as `toISOString()` text, so string order is time order (millisecond precision). */
const timestamp = (field: string) =>
  v.pipe(
    v.string(`${field} is required`),
    v.check((value) => parseInstant(value) !== undefined, `${field} must be an ISO 8601 date-time with Z or an offset`),
    v.transform((value) => new Date(parseInstant(value) as number).toISOString()),
  );

const slug = (field: string) =>
  v.pipe(v.string(`${field} is required`), v.regex(SLUG, `${field} must be a lower-case slug`));

const common = () => ({
  organization: slug('organization'),
  id: text('id', MAX_ID_LENGTH),
  brands: v.optional(
    v.pipe(
      v.array(slug('brand'), 'brands must be an array of brand slugs'),
      v.transform((brands) => [...new Set(brands)]),
      v.maxLength(MAX_BRANDS_PER_RECORD, `brands must hold at most ${MAX_BRANDS_PER_RECORD} brands`),
    ),
    [],
  ),
  createdAt: timestamp('createdAt'),
  updatedAt: v.optional(timestamp('updatedAt')),
  deleted: v.optional(v.boolean('deleted must be a boolean'), false),
});

const optionalText = (field: string, max: number) =>
  v.optional(v.pipe(v.string(`${field} must be a string`), storable(field), v.maxLength(max, `${field} is too long`)));
const recordNumber = (field: string) =>
  v.pipe(v.number(`${field} must be a number`), v.safeInteger(`${field} must be an integer`));
const assetType = v.picklist(ASSET_TYPES, 'Invalid asset type provided');

/** What the threat lifecycle keeps on a report: its text, who sent it, and a summary of its proposals. */
const reportDetails = () => ({
  title: optionalText('title', 512),
  description: optionalText('description', 16_384),
  status: v.optional(v.picklist(REPORT_STATUSES, `status must be one of ${REPORT_STATUSES.join(', ')}`)),
  /** Written before its proposals and cleared with the last of them; until then it counts nowhere and no listing shows it. */
  incomplete: v.optional(v.boolean('incomplete must be a boolean')),
  proposals: v.optional(
    v.array(
      v.object({
        id: recordNumber('proposal id'),
        assetId: recordNumber('assetId'),
        content: v.string(),
        type: assetType,
        reviewStatus: v.picklist(REVIEW_STATUSES),
      }),
    ),
  ),
  reporter: v.optional(
    v.object({
      contactInfo: optionalText('contactInfo', 1024),
      attachmentUrls: v.optional(v.array(v.pipe(v.string(), v.maxLength(2048)))),
      externalReporter: v.optional(
        v.object({
          platformIdentifier: optionalText('platformIdentifier', 256),
          platform: optionalText('platform', 64),
          displayName: optionalText('displayName', 256),
          avatarUrl: optionalText('avatarUrl', 2048),
        }),
      ),
    }),
  ),
});

/** A threat the lifecycle created is a proposal of a report; its review is kept with it. */
const threatDetails = () => ({
  reportId: optionalText('reportId', MAX_ID_LENGTH),
  assetId: v.optional(recordNumber('assetId')),
  blockedAt: v.optional(v.string()),
  review: v.optional(
    v.object({
      id: recordNumber('review id'),
      decision: v.picklist(['APPROVE', 'REJECT']),
      label: v.nullable(v.string()),
      brandId: v.nullable(recordNumber('brandId')),
      comment: v.nullable(v.string()),
      reason: v.nullable(v.string()),
      createdAt: v.string(),
    }),
  ),
});

const takedownDetails = () => ({
  threatId: optionalText('threatId', MAX_ID_LENGTH),
  assetId: v.optional(recordNumber('assetId')),
  content: optionalText('content', MAX_CONTENT_LENGTH),
  assetType: v.optional(assetType),
  status: v.pipe(
    v.picklist(
      [...TAKEDOWN_STATUSES, ...(Object.keys(LEGACY_TAKEDOWN_STATUSES) as ['FILED', 'FAILED'])],
      `status must be one of ${TAKEDOWN_STATUSES.join(', ')} (or FILED, FAILED)`,
    ),
    v.transform((status): TakedownStatus => LEGACY_TAKEDOWN_STATUSES[status] ?? (status as TakedownStatus)),
  ),
  /** Absent: UNKNOWN. */
  livenessStatus: v.optional(
    v.picklist(LIVENESS_STATUSES, `livenessStatus must be one of ${LIVENESS_STATUSES.join(', ')}`),
  ),
  assignee: v.optional(
    v.nullable(
      v.object(
        { id: recordNumber('assignee id'), fullName: text('assignee fullName', 256) },
        'assignee must be an object with id and fullName, or null',
      ),
    ),
  ),
});

/**
 * One activity change in the fixture format: the full state of a report, threat or takedown
 * after the change. `updatedAt` defaults to `createdAt`; unknown fields are ignored. Made at its
 * first parse, with its parts: the functions that only read records (the lookups, the lists) never
 * build it (esbuild keeps the module-level calls of a module it bundles, used or not).
 */
const changeSchema = () =>
  v.pipe(
    v.variant(
      'kind',
      [
        v.object({ ...common(), ...reportDetails(), kind: v.literal('report') }),
        v.object({
          ...common(),
          ...threatDetails(),
          kind: v.literal('threat'),
          content: v.pipe(text('content', MAX_CONTENT_LENGTH), v.trim(), v.nonEmpty('content is required')),
          assetType,
          status: v.picklist(THREAT_STATUSES, `status must be one of ${THREAT_STATUSES.join(', ')}`),
          watchlisted: v.optional(v.boolean('watchlisted must be a boolean'), false),
        }),
        v.object({
          ...common(),
          ...takedownDetails(),
          kind: v.literal('takedown'),
        }),
      ],
      `kind must be one of ${ACTIVITY_KINDS.join(', ')}`,
    ),
    v.transform((change) => ({ ...change, updatedAt: change.updatedAt ?? change.createdAt })),
    v.check((change) => change.updatedAt >= change.createdAt, 'updatedAt must not be earlier than createdAt'),
  );
export type ActivityChange = v.InferOutput<ReturnType<typeof changeSchema>>;
let activityChangeSchema: ReturnType<typeof changeSchema> | undefined;

/** Validates and normalizes any input (a parsed SQS body, a fixture entry, CLI JSON). */
export const parseActivityChange = (input: unknown): ActivityChange => {
  activityChangeSchema ??= changeSchema();
  const result = v.safeParse(activityChangeSchema, input);
  if (result.success) return result.output;
  const issues = result.issues.map((issue) => {
    const path = v.getDotPath(issue);
    return path ? { message: issue.message, path } : { message: issue.message };
  });
  throw new BadRequestError(`Invalid activity change: ${issues[0]?.message ?? 'invalid'}`, { issues });
};
