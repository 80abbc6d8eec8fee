import * as v from 'valibot';
import { HEALTHCHECK_KEYS, SUBSCRIPTION_STATUSES } from '../../shared/domain/account/organization-settings.ts';
import { healthcheckRegistry } from '../../shared/domain/insights/healthcheck-registry.ts';
import { MAX_FINDINGS } from '../../shared/domain/insights/healthchecks.ts';
import { AGE_BUCKETS } from '../../shared/domain/insights/insights.ts';
import { jsonSchemaTwin } from '../../shared/schema-twin.ts';
import type { OperationDoc, ResponseDoc } from './operation-doc.ts';
import { counters } from './responses.ts';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const day = v.pipe(v.string(), v.isoDate());
const threshold = v.object({ warn: v.number(), fail: v.number() });
/** A field kept for one version under its earlier name. */
/** A deprecated alias: still answered, not required, so a client written to the published names validates. */
const deprecated = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.optional(v.pipe(schema, v.description(description), jsonSchemaTwin({ deprecated: true })));
const severity = v.picklist(['ok', 'warn', 'fail']);
const healthcheck = v.object({
  id: v.picklist(HEALTHCHECK_KEYS),
  severity,
  observed: v.number(),
  threshold,
  findings: v.pipe(
    v.array(
      v.object({
        id,
        kind: v.picklist(['proposal', 'takedown', 'config']),
        createdAt: timestamp,
        ageSeconds: count,
      }),
    ),
    v.maxLength(MAX_FINDINGS),
  ),
  suggestedAction: v.string(),
  key: deprecated(v.picklist(HEALTHCHECK_KEYS), 'Deprecated: `id`.'),
  status: deprecated(severity, 'Deprecated: `severity`.'),
  value: deprecated(v.number(), 'Deprecated: `observed`.'),
  detail: deprecated(v.string(), 'Deprecated: a sentence about the result, kept for one version.'),
});
const registryEntry = v.object({
  id: v.string(),
  title: v.string(),
  path: v.string(),
  implemented: v.boolean(),
  notImplementedReason: v.optional(v.string()),
});
const queue = v.object({
  name: v.picklist(['review', 'takedown']),
  size: count,
  oldestAgeSeconds: v.nullable(count),
  p50AgeSeconds: v.nullable(count),
  slaSeconds: count,
  breaching: v.boolean(),
  buckets: v.array(v.object({ label: v.picklist(AGE_BUCKETS.map(({ label }) => label)), count })),
  staleCount: count,
});
const service = v.object({ active: v.boolean() });
const legalDocument = v.object({
  present: v.boolean(),
  fileName: v.nullable(v.string()),
  fileUrl: v.nullable(v.string()),
});
const organization = v.object({
  id,
  name: v.string(),
  slug: v.string(),
  avatarUrl: v.nullable(v.string()),
  subscriptionStatus: v.picklist(SUBSCRIPTION_STATUSES),
  services: v.object({
    reporting: service,
    reviewing: service,
    protection: service,
    takedowns: v.object({ active: v.boolean(), automated: v.boolean() }),
    detection: service,
    darkWebMonitoring: service,
  }),
  obligatoryAdminApproval: v.boolean(),
  integrations: v.object({
    slack: v.boolean(),
    discord: v.boolean(),
    telegram: v.object({ connected: v.boolean(), groupCount: count }),
    vercel: v.boolean(),
    intercom: v.boolean(),
    moderation: v.boolean(),
  }),
  legalDocuments: v.object({ letterOfAuthorization: legalDocument, powerOfAttorney: legalDocument }),
  trademarkRegistrations: v.array(
    v.object({ issuingOffice: v.string(), registrationNumber: v.string(), certificateUrl: v.nullable(v.string()) }),
  ),
  role: v.string(),
});
/** The published example, without the portal fields only an unmerged page shows; `role` is this service's addition. */
export const ORGANIZATION_EXAMPLE = {
  id: 42,
  name: 'Acme Protocol',
  slug: 'acme',
  avatarUrl: 'https://cdn.acme.example/acme.png',
  subscriptionStatus: 'ACTIVE',
  services: {
    reporting: { active: true },
    reviewing: { active: true },
    protection: { active: true },
    takedowns: { active: true, automated: false },
    detection: { active: true },
    darkWebMonitoring: { active: false },
  },
  obligatoryAdminApproval: false,
  integrations: {
    slack: true,
    discord: false,
    telegram: { connected: true, groupCount: 2 },
    vercel: false,
    intercom: false,
    moderation: true,
  },
  legalDocuments: {
    letterOfAuthorization: { present: true, fileName: 'loa.pdf', fileUrl: 'https://cdn.acme.example/loa.pdf' },
    powerOfAttorney: { present: false, fileName: null, fileUrl: null },
  },
  trademarkRegistrations: [],
  role: 'ORGANIZATION',
};
/** An example queue's age buckets, youngest first, from their counts. */
export const bucketsOf = (counts: readonly number[]) =>
  AGE_BUCKETS.map(({ label }, i) => ({ label, count: counts[i] ?? 0 }));
const ORGANIZATION_FIELDS =
  'Each organization answers the published fields from its record (`npm run admin -- org settings`, or the fixture): `avatarUrl`, `subscriptionStatus` (default `ACTIVE`), `services` (every one with `active`, `takedowns` also with `automated`), `obligatoryAdminApproval`, `integrations` (`telegram` as `{connected, groupCount}`), `legalDocuments` (`letterOfAuthorization` and `powerOfAttorney`, each `{present, fileName, fileUrl}`) and `trademarkRegistrations` (**Decision:** each `{issuingOffice, registrationNumber, certificateUrl}`), plus the caller’s `role`.';
const user = v.object({
  id: v.string(),
  email: v.nullable(v.string()),
  fullName: v.nullable(v.string()),
  avatarUrl: v.nullable(v.string()),
});
const reportId = v.union([id, v.string()]);

const BODY = {
  summary: v.object({
    ...counters,
    detections: count,
    disputes: count,
    medianTimeToBlockMinutes: v.nullable(count),
    medianTimeToTakedownHours: v.nullable(v.pipe(v.number(), v.minValue(0))),
  }),
  breakdown: v.object({ rows: v.array(v.object({ key: v.string(), value: count })) }),
  found: v.object({ found: count, previousPeriod: count, startDate: day, endDate: day }),
  healthchecks: v.object({ checks: v.array(registryEntry) }),
  queues: v.object({ windowHours: v.pipe(v.number(), v.integer(), v.minValue(1)), queues: v.array(queue) }),
  reportsSearch: v.object({
    results: v.array(
      v.object({
        asset: v.string(),
        reports: v.array(v.object({ id: reportId, status: v.string(), createdAt: timestamp })),
      }),
    ),
    reports: v.array(v.object({ id: reportId, status: v.string(), assets: v.array(v.string()) })),
    totalCount: count,
  }),
  organizationReports: v.object({
    reports: v.array(v.object({ id: reportId, status: v.string(), createdAt: timestamp })),
    nextCursor: v.nullable(v.string()),
    cursor: v.nullable(v.string()),
  }),
  validate: v.object({
    valid: v.literal(true),
    kind: v.picklist(['organization', 'user']),
    organization: v.nullable(v.object({ slug: v.string() })),
    scopes: v.array(v.picklist(['read', 'write'])),
  }),
};

const error = (description: string): ResponseDoc => ({ description, error: true });
const NO_ACCESS = error(
  'A user key without `slug`, or not an ACTIVE member of it; an organization key naming another organization',
);
const SUMMARY_EXAMPLE = {
  reports: 4,
  newThreats: 12,
  threatsWatchlisted: 1,
  takedownsFiled: 3,
  takedownsCompleted: 2,
  domainThreats: 9,
  twitterThreats: 2,
  telegramThreats: 1,
  otherThreats: 0,
  detections: 0,
  disputes: 0,
  medianTimeToBlockMinutes: 42,
  medianTimeToTakedownHours: 30.5,
};
const CHECK_EXAMPLE = {
  id: 'reviewing.backlog',
  severity: 'ok',
  observed: 3,
  threshold: { warn: 50, fail: 200 },
  findings: [],
  suggestedAction: 'None: the check is ok.',
  key: 'reviewing.backlog',
  status: 'ok',
  value: 3,
  detail: '3 proposals are pending review',
};
const AGE_EXAMPLE = {
  id: 'takedowns.stale-in-progress',
  severity: 'fail',
  observed: 18,
  threshold: { warn: 7, fail: 14 },
  findings: [{ id: 1790000000000123, kind: 'takedown', createdAt: '2026-03-02T10:00:00.000Z', ageSeconds: 1_591_200 }],
  suggestedAction: 'Follow up with the providers of the oldest IN_PROGRESS takedowns (the findings).',
  key: 'takedowns.stale-in-progress',
  status: 'fail',
  value: 18,
  detail: '1 IN_PROGRESS takedowns 7 days old or older; the oldest was created 18 days ago (2026-03-02)',
};
/** Which checks list offenders in `findings`. */
const FINDINGS_OF: Partial<Record<(typeof HEALTHCHECK_KEYS)[number], string>> = {
  'reviewing.old-proposals':
    'pending proposals (`kind: proposal`) whose creation day is at least `threshold.warn` days old',
  'takedowns.stale-in-progress':
    'IN_PROGRESS takedowns (`kind: takedown`) whose creation day is at least `threshold.warn` days old',
  'detections.silent-configs': 'the silent configs (`kind: config`)',
};

const CHECK_DESCRIPTIONS: Record<(typeof HEALTHCHECK_KEYS)[number], string> = {
  'reviewing.backlog': 'Proposals pending review.',
  'reviewing.old-proposals': 'The age in days of the oldest pending proposal (from the start of its creation day).',
  'takedowns.todo-volume': 'Takedowns in TODO.',
  'takedowns.in-progress-volume': 'Takedowns IN_PROGRESS, whatever their age.',
  'takedowns.stale-in-progress':
    'The age in days of the oldest IN_PROGRESS takedown (from the start of its creation day).',
  'takedowns.cancelled-count': 'Takedowns last updated as CANCELLED in the 7 days ending today.',
  'takedowns.automation-off': 'Days automated takedowns have been off while the takedowns service is active.',
  'assets.dead-asset-spike':
    'Assets found dead today; the levels are the warn and fail multiples of the 7-day daily baseline, and never below 10.',
  'detections.silent-configs':
    'Enabled detection configs whose runs queued within `lookbackHours` (default 168) found fewer than `minResults` (default 1) results; both may be sent in the body.',
  'organization.missing-contact-url': '1 when the organization has no contact URL.',
};

const healthcheckOperations = Object.fromEntries(
  HEALTHCHECK_KEYS.map((check): [string, OperationDoc] => [
    `healthcheck-${check.replace('.', '-')}`,
    {
      summary: `Healthcheck ${check}`,
      description: `${CHECK_DESCRIPTIONS[check]} \`observed\` is graded \`fail\` at or above \`threshold.fail\`, \`warn\` at or above \`threshold.warn\`; the thresholds are the stage's unless the organization set its own. ${FINDINGS_OF[check] === undefined ? '`findings` is always empty for this check.' : `\`findings\`: the ${FINDINGS_OF[check]}, oldest first, at most ${MAX_FINDINGS}, read from a sparse index with one bounded query.`} \`key\`, \`status\`, \`value\` and \`detail\` are the earlier names, deprecated.`,
      tag: 'Insights',
      requestExample: { slug: 'acme' },
      responses: {
        200: {
          description: 'The check’s result',
          body: healthcheck,
          example: check === 'takedowns.stale-in-progress' ? AGE_EXAMPLE : { ...CHECK_EXAMPLE, id: check, key: check },
        },
        403: NO_ACCESS,
      },
    },
  ]),
);

/** The insights and account routes, by route name. */
export const INSIGHTS_OPERATIONS: Record<string, OperationDoc> = {
  'get-metrics-summary': {
    summary: 'Metrics summary',
    description:
      'The organization’s counters over whole UTC days (default: from its first counted day to today), with `detections`, `disputes` and the median times to block and to take down (from histograms with 5 % buckets; null without samples). `brandSlug` narrows the counters to a brand as the organization metrics do. An organization key, or a user key with `slug`.',
    tag: 'Insights',
    requestExample: { slug: 'acme', startDate: '2026-03-01', endDate: '2026-03-31' },
    responses: {
      200: { description: 'The summary', body: BODY.summary, example: SUMMARY_EXAMPLE },
      403: NO_ACCESS,
      404: error('Brand not found'),
    },
  },
  'get-metrics-breakdown': {
    summary: 'Metrics breakdown',
    description:
      'One counter of the summary split `by` day (days with a count, ascending), asset type, source or brand (largest first; a record counts under its first brand, `NONE` without one). The values sum to the summary’s counter over the same dates.',
    tag: 'Insights',
    requestExample: { slug: 'acme', by: 'type', metric: 'newThreats' },
    responses: {
      200: {
        description: 'The rows',
        body: BODY.breakdown,
        example: {
          rows: [
            { key: 'URL', value: 9 },
            { key: 'TWITTER', value: 2 },
          ],
        },
      },
      403: NO_ACCESS,
    },
  },
  'get-metrics-found': {
    summary: 'Found threats',
    description:
      'New threats in the window (default: the 30 days ending today) and in the window of the same length just before it.',
    tag: 'Insights',
    requestExample: { slug: 'acme', startDate: '2026-03-01', endDate: '2026-03-07' },
    responses: {
      200: {
        description: 'The counts',
        body: BODY.found,
        example: { found: 12, previousPeriod: 7, startDate: '2026-03-01', endDate: '2026-03-07' },
      },
      403: NO_ACCESS,
    },
  },
  'list-healthchecks': {
    summary: 'The healthcheck registry',
    description:
      'Every check a client may call (`implemented: true`, at `path`, relative to the API base), then the planned ones (`implemented: false`, with `notImplementedReason`); call only implemented ones. Nothing is evaluated, so any valid key may read it and a `slug` is not needed. **Decision:** the published registry names no planned check; the planned entries here are the drift signals of `POST /detection/drift` not graded as checks yet.',
    tag: 'Insights',
    requestExample: {},
    responses: {
      200: { description: 'The registry', body: BODY.healthchecks, example: healthcheckRegistry() },
    },
  },
  ...healthcheckOperations,
  'get-queues-snapshot': {
    summary: 'Queue snapshot',
    description:
      'The review queue (pending proposals) and the takedown queue (TODO and IN_PROGRESS takedowns): size, the oldest and median ages (from the start of the creation day), whether the oldest is past the SLA, the counts by age in the published `buckets` (`<1d`, `1-3d`, `3-7d`, `7-14d`, `>14d`; a bucket holds ages from its lower bound, inclusive, to its upper bound, exclusive; the counts sum to `size`), and `staleCount`, the items that have waited `windowHours` (default 168) or longer. Cost: the buckets come from the same open-work day gauges as the sizes (one Query per counter shard of the organization’s month gauge items), whatever the number of items.',
    tag: 'Insights',
    requestExample: { slug: 'acme', windowHours: 168 },
    responses: {
      200: {
        description: 'The queues',
        body: BODY.queues,
        example: {
          windowHours: 168,
          queues: [
            {
              name: 'review',
              size: 3,
              oldestAgeSeconds: 259200,
              p50AgeSeconds: 86400,
              slaSeconds: 604800,
              breaching: false,
              buckets: bucketsOf([1, 1, 1, 0, 0]),
              staleCount: 0,
            },
            {
              name: 'takedown',
              size: 0,
              oldestAgeSeconds: null,
              p50AgeSeconds: null,
              slaSeconds: 604800,
              breaching: false,
              buckets: bucketsOf([0, 0, 0, 0, 0]),
              staleCount: 0,
            },
          ],
        },
      },
      403: NO_ACCESS,
    },
  },
  'search-reports': {
    summary: 'Search reports by asset',
    description:
      'For each asset (1 to 100, as `assets` or `assetContents`), the organization’s reports that propose its canonical content, so a client files no duplicate; `reports` lists each report once with the asked contents it holds.',
    tag: 'Insights',
    requestExample: { assets: ['acme-airdrop.xyz'] },
    responses: {
      200: {
        description: 'The reports of each asset',
        body: BODY.reportsSearch,
        example: {
          results: [
            {
              asset: 'acme-airdrop.xyz',
              reports: [{ id: 12345, status: 'TODO', createdAt: '2026-03-01T10:00:00.000Z' }],
            },
          ],
          reports: [{ id: 12345, status: 'TODO', assets: ['acme-airdrop.xyz'] }],
          totalCount: 1,
        },
      },
      403: NO_ACCESS,
    },
  },
  'get-public-organization-reports': {
    summary: 'Organization reports (deprecated)',
    description:
      'Deprecated: use `GET /organization/reports`. The same listing, with `slug` (or `organizationSlug`), `limit` and `cursor` in the body.',
    tag: 'Insights',
    requestExample: { slug: 'acme', needsCustomerReview: true },
    responses: {
      200: {
        description: 'A page of reports',
        body: BODY.organizationReports,
        example: { reports: [], nextCursor: null, cursor: null },
        headers: { Deprecation: 'When the endpoint was deprecated', Link: 'The successor endpoint' },
      },
      403: NO_ACCESS,
    },
  },
  'get-current-user': {
    summary: 'Current user',
    description: 'The user a user key belongs to; an organization key has none (403).',
    tag: 'Account',
    responses: {
      200: {
        description: 'The user',
        body: user,
        example: { id: 'u-1', email: 'ana@acme.example', fullName: 'Ana Lima', avatarUrl: null },
      },
      403: error('An organization key'),
    },
  },
  'update-current-user': {
    summary: 'Update the current user',
    description: 'Sets the user’s `fullName` and `avatarUrl` (null clears it); an organization key has no user (403).',
    tag: 'Account',
    requestExample: { fullName: 'Ana Lima' },
    responses: {
      200: {
        description: 'The user after the change',
        body: user,
        example: { id: 'u-1', email: 'ana@acme.example', fullName: 'Ana Lima', avatarUrl: null },
      },
      403: error('An organization key, or a key without the write scope'),
    },
  },
  'list-user-organizations': {
    summary: 'List the caller’s organizations',
    description: `A user key: the organizations it is an ACTIVE member of; an organization key: its own. INACTIVE organizations are never listed. The optional filters are ANDed: \`subscriptionStatus\` (an array of ${SUBSCRIPTION_STATUSES.filter((status) => status !== 'INACTIVE').join(', ')}), \`services\` (an array of service keys, each of which must be active, or an object such as \`{"takedowns": {"active": true, "automated": false}}\`; \`automated\` only for \`takedowns\`), \`obligatoryAdminApproval\` (boolean) and \`query\` (a case-insensitive substring of the name, at most 256 characters); any other value is 400 naming the field. ${ORGANIZATION_FIELDS}`,
    tag: 'Account',
    requestExample: { subscriptionStatus: ['ACTIVE', 'POC'], services: ['takedowns'], query: 'acme' },
    responses: {
      200: {
        description: 'The organizations',
        body: v.object({ organizations: v.array(organization) }),
        example: { organizations: [ORGANIZATION_EXAMPLE] },
      },
      400: error('A filter of the wrong shape or an unknown value (the issue names the field)'),
    },
  },
  'get-user-organization': {
    summary: 'One of the caller’s organizations',
    description: `As in the list, unwrapped; any organization the caller cannot reach is not found. **Decision:** an INACTIVE organization the caller belongs to is answered here (the published page leaves it out of the list only). ${ORGANIZATION_FIELDS}`,
    tag: 'Account',
    responses: {
      200: { description: 'The organization', body: organization, example: ORGANIZATION_EXAMPLE },
      404: error('Organization not found'),
    },
  },
  'validate-key': {
    summary: 'Validate the key',
    description: 'What the key is: its kind, its organization (for an organization key) and scopes. A bad key is 401.',
    tag: 'Account',
    responses: {
      200: {
        description: 'The key is valid',
        body: BODY.validate,
        example: { valid: true, kind: 'organization', organization: { slug: 'acme' }, scopes: ['read', 'write'] },
      },
    },
  },
};
