import * as v from 'valibot';
import { TAKEDOWN_STATUSES } from '../domain/activity.ts';
import { metricsDate } from '../domain/metrics.ts';
import {
  IMPERSONATION_LABELS,
  REJECT_REASONS,
  REVIEW_DECISIONS,
  REVIEW_LABELS,
  WATCHLIST_REASONS,
} from '../domain/reviews.ts';
import { jsonSchemaTwin } from '../schema-twin.ts';
import { assetType, boundedText, nullable, organizationSlug } from './schemas.ts';

const optionalText = /* @__NO_SIDE_EFFECTS__ */ (field: string, max: number) => nullable(boundedText(field, 0, max));
const id = /* @__NO_SIDE_EFFECTS__ */ (field: string) =>
  v.pipe(
    v.number(`${field} must be a positive integer`),
    v.safeInteger(`${field} must be a positive integer`),
    v.minValue(1, `${field} must be a positive integer`),
  );

const reportAsset = v.object(
  {
    content: v.pipe(boundedText('content', 1, 2048), v.trim(), v.nonEmpty('content is required')),
    status: v.optional(v.picklist(['BLOCKED'], 'status must be BLOCKED'), 'BLOCKED'),
  },
  'Each asset must be an object with a content string',
);

/** `POST /report/create`. Content is bounded at 2,048 characters so 100 proposals fit in their report's item. */
export const reportBody = v.object(
  {
    title: boundedText('title', 3, 512),
    description: boundedText('description', 0, 16_384),
    assets: v.pipe(
      v.array(reportAsset, 'assets must be an array'),
      v.minLength(1, 'assets must hold between 1 and 100 assets'),
      v.maxLength(100, 'assets must hold between 1 and 100 assets'),
    ),
    organizationSlug: nullable(organizationSlug),
    contactInfo: optionalText('contactInfo', 1024),
    attachmentUrls: nullable(
      v.pipe(v.array(boundedText('attachmentUrls[]', 1, 2048)), v.maxLength(20, 'at most 20 attachmentUrls')),
    ),
    externalReporter: nullable(
      v.object({
        platformIdentifier: optionalText('platformIdentifier', 256),
        platform: optionalText('platform', 64),
        displayName: optionalText('displayName', 256),
        avatarUrl: optionalText('avatarUrl', 2048),
      }),
    ),
  },
  'Request body must be an object with title, description and assets',
);

const required = (field: string, when: string) => `\`${field}\` is required when ${when}`;
/** The JSON Schema of "`field` is required (and not null) when `on` is `value`". */
const when = /* @__NO_SIDE_EFFECTS__ */ (on: string, value: string | readonly string[], field: string) =>
  // `then` is a JSON Schema keyword here, not a thenable.
  Object.fromEntries([
    ['if', { properties: { [on]: typeof value === 'string' ? { const: value } : { enum: value } }, required: [on] }],
    ['then', { properties: { [field]: { not: { type: 'null' } } }, required: [field] }],
  ]);

/** `POST /organization/proposals/{proposalId}/review`: each decision's own fields are required with it. */
export const reviewBody = v.pipe(
  v.object(
    {
      assetId: id('assetId'),
      decision: v.picklist(REVIEW_DECISIONS, `decision must be one of ${REVIEW_DECISIONS.join(', ')}`),
      label: nullable(v.picklist(REVIEW_LABELS, `label must be one of ${REVIEW_LABELS.join(', ')}`)),
      brandId: nullable(id('brandId')),
      rejectReason: nullable(v.picklist(REJECT_REASONS, `rejectReason must be one of ${REJECT_REASONS.join(', ')}`)),
      watchlistReason: nullable(
        v.picklist(WATCHLIST_REASONS, `watchlistReason must be one of ${WATCHLIST_REASONS.join(', ')}`),
      ),
      note: nullable(boundedText('note', 1, 2048)),
    },
    'Request body must be an object with assetId and decision',
  ),
  jsonSchemaTwin({
    allOf: [
      when('decision', 'APPROVE', 'label'),
      when('label', IMPERSONATION_LABELS, 'brandId'),
      when('decision', 'REJECT', 'rejectReason'),
      when('decision', 'WATCHLIST', 'watchlistReason'),
      when('watchlistReason', 'OTHER', 'note'),
    ],
  }),
  v.check((body) => body.decision !== 'APPROVE' || body.label !== undefined, required('label', 'approving a proposal')),
  v.check(
    (body) => body.label === undefined || !IMPERSONATION_LABELS.includes(body.label) || body.brandId !== undefined,
    required('brandId', `the label is ${IMPERSONATION_LABELS.join(' or ')}`),
  ),
  v.check(
    (body) => body.decision !== 'REJECT' || body.rejectReason !== undefined,
    required('rejectReason', 'rejecting a proposal'),
  ),
  v.check(
    (body) => body.decision !== 'WATCHLIST' || body.watchlistReason !== undefined,
    required('watchlistReason', 'watchlisting a proposal'),
  ),
  v.check(
    (body) => body.watchlistReason !== 'OTHER' || body.note !== undefined,
    required('note', 'the watchlist reason is OTHER'),
  ),
);

const flag = /* @__NO_SIDE_EFFECTS__ */ (field: string) =>
  v.pipe(
    v.picklist(['true', 'false', '1', '0'], `${field} must be true or false`),
    v.transform((text) => text === 'true' || text === '1'),
  );
const cursor = v.pipe(v.string(), v.maxLength(4096, 'Invalid next_page cursor'));

/** `GET /organization/reports`. */
export const reportsQuery = v.object({
  limit: v.pipe(
    v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'limit must be an integer between 1 and 100')), '50'),
    v.transform(Number),
    v.minValue(1, 'limit must be an integer between 1 and 100'),
    v.maxValue(100, 'limit must be an integer between 1 and 100'),
  ),
  cursor: v.optional(cursor),
  startDate: v.optional(metricsDate),
  endDate: v.optional(metricsDate),
  onlyRejected: v.optional(flag('onlyRejected')),
  needsCustomerReview: v.optional(flag('needsCustomerReview')),
});

const perPage = v.optional(
  v.pipe(
    v.number('per_page must be an integer between 1 and 100'),
    v.safeInteger('per_page must be an integer between 1 and 100'),
    v.minValue(1, 'per_page must be an integer between 1 and 100'),
    v.maxValue(100, 'per_page must be an integer between 1 and 100'),
  ),
  10,
);
const sorting = <K extends string>(keys: readonly [K, ...K[]]) =>
  nullable(
    v.pipe(
      v.array(
        v.object({
          key: v.picklist(keys, `sorting key must be one of ${keys.join(', ')}`),
          direction: v.optional(v.picklist(['asc', 'desc'], 'sorting direction must be asc or desc'), 'asc'),
        }),
      ),
      v.maxLength(4, 'sorting holds at most 4 entries'),
    ),
  );
const listFields = {
  query: nullable(boundedText('query', 0, 256)),
  startDate: nullable(metricsDate),
  endDate: nullable(metricsDate),
  assetType: nullable(v.pipe(v.array(assetType), v.maxLength(20, 'assetType holds at most 20 types'))),
  organizationSlug: nullable(organizationSlug),
  per_page: perPage,
  next_page: nullable(cursor),
};

/** `POST /threats/list`. */
export const threatsBody = v.optional(
  v.object(
    { ...listFields, sorting: sorting(['id', 'blockedAt', 'content', 'type']) },
    'Request body must be an object',
  ),
  {},
);

/** `POST /takedowns/list`. */
export const takedownsBody = v.optional(
  v.object(
    {
      ...listFields,
      takedownStatus: nullable(v.array(v.picklist(TAKEDOWN_STATUSES, 'Invalid takedown status'))),
      sorting: sorting(['updatedAt', 'createdAt']),
    },
    'Request body must be an object',
  ),
  {},
);
