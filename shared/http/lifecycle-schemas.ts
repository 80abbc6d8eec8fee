import * as v from 'valibot';
import { webUrl } from '../domain/core/web-url.ts';
import {
  IMPERSONATION_LABELS,
  REJECT_REASONS,
  REVIEW_DECISIONS,
  REVIEW_LABELS,
  WATCHLIST_REASONS,
} from '../domain/lifecycle/reviews.ts';
import { jsonSchemaTwin } from '../schema-twin.ts';
import { boundedText, nullable, organizationSlug } from './schemas.ts';

const optionalText = (field: string, max: number) => nullable(boundedText(field, 0, max));
const id = (field: string) =>
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
      v.pipe(
        v.array(webUrl('attachmentUrls[]'), 'attachmentUrls must be an array of strings'),
        v.maxLength(20, 'at most 20 attachmentUrls'),
      ),
    ),
    externalReporter: nullable(
      v.object(
        {
          platformIdentifier: optionalText('platformIdentifier', 256),
          platform: optionalText('platform', 64),
          displayName: optionalText('displayName', 256),
          avatarUrl: nullable(webUrl('avatarUrl')),
        },
        'externalReporter must be an object',
      ),
    ),
  },
  'Request body must be an object with title, description and assets',
);

const required = (field: string, when: string) => `\`${field}\` is required when ${when}`;
/** The JSON Schema of "`field` is required (and not null) when `on` is `value`". */
const when = (on: string, value: string | readonly string[], field: string) =>
  // `then` is a JSON Schema keyword here, not a thenable.
  Object.fromEntries([
    ['if', { properties: { [on]: typeof value === 'string' ? { const: value } : { enum: value } }, required: [on] }],
    // The not-null test sits in an `allOf`, where example validators that forbid undeclared properties
    // (Redocly's lint) do not apply that rule to a partial schema.
    ['then', { required: [field], allOf: [{ properties: { [field]: { not: { type: 'null' } } } }] }],
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
