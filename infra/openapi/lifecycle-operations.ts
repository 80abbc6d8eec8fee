import * as v from 'valibot';
import { ASSET_TYPES } from '../../shared/domain/allowlist/asset-types.ts';
import { LIVENESS_STATUSES, TAKEDOWN_STATUSES } from '../../shared/domain/lifecycle/activity.ts';
import { CONSUMERS, type ConsumerSlug } from '../../shared/domain/lookups/consumers.ts';
import type { OperationDoc, ResponseDoc } from './operation-doc.ts';

/** The review of an approval, as the published example shows it. */
export const APPROVAL_EXAMPLE = {
  id: 55123,
  decision: 'APPROVE',
  label: 'General Phishing',
  brandId: null,
  comment: 'General Phishing',
  createdAt: '2026-08-06T10:30:00.000Z',
};
const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const type = v.picklist(ASSET_TYPES);
const reviewStatus = v.picklist(['PENDING', 'APPROVED', 'REJECTED']);
const assetRef = v.object({ id, type, content: v.string(), status: v.picklist(['UNKNOWN', 'BLOCKED']) });
const proposal = v.object({ id, reviewStatus, asset: assetRef });
const cursor = v.nullable(v.string());
/** The text id an ingest or a fixture recorded the item under; null for items the API made. */
const externalId = v.nullable(v.string());
const textList = v.array(v.string());

const BODY = {
  reportCreated: v.object({
    id,
    createdAt: timestamp,
    organization: v.object({ id, slug: v.string(), name: v.string() }),
  }),
  reports: v.object({
    reports: v.array(
      v.object({
        id,
        externalId,
        title: v.string(),
        description: v.string(),
        status: v.picklist(['TODO', 'IN_PROGRESS', 'CLOSED']),
        createdAt: timestamp,
        updatedAt: timestamp,
        assets: v.array(v.object({ id, content: v.string(), type, status: v.picklist(['UNKNOWN', 'BLOCKED']) })),
        proposals: v.array(proposal),
      }),
    ),
    nextCursor: cursor,
    cursor,
  }),
  reviewed: v.object({
    proposal,
    review: v.object({
      id,
      decision: v.picklist(['APPROVE', 'REJECT']),
      label: v.string(),
      brandId: v.nullable(id),
      comment: v.string(),
      createdAt: timestamp,
    }),
    watchlisted: v.boolean(),
  }),
  threats: v.object({
    threats: v.array(v.object({ id, externalId, content: v.string(), type, blockedAt: timestamp })),
    next_page: cursor,
  }),
  takedowns: v.object({
    takedowns: v.array(
      v.object({
        id,
        externalId,
        status: v.picklist(TAKEDOWN_STATUSES),
        createdAt: timestamp,
        updatedAt: timestamp,
        asset: v.nullable(
          v.object({
            id: v.nullable(id),
            content: v.string(),
            type: v.nullable(type),
            livenessStatus: v.picklist(LIVENESS_STATUSES),
          }),
        ),
        assignee: v.nullable(v.object({ id, fullName: v.string() })),
        brand: v.nullable(v.object({ id, name: v.string(), slug: v.string() })),
      }),
    ),
    next_page: cursor,
  }),
  brands: v.object({
    brands: v.array(
      v.object({
        id,
        slug: v.string(),
        name: v.string(),
        type: v.picklist(['ORGANIZATION', 'INDIVIDUAL']),
        brandColors: textList,
        includedTerms: textList,
        excludedTerms: textList,
        tickers: textList,
        avatarUrl: v.nullable(v.string()),
        websiteUrl: v.nullable(v.string()),
        twitterHandle: v.nullable(v.string()),
        useOrganizationDocs: v.boolean(),
        legalDocuments: v.array(v.object({ id, name: v.string(), url: v.string() })),
        trademarkRegistrations: v.array(
          v.object({
            id,
            mark: v.string(),
            registrationNumber: v.string(),
            jurisdiction: v.string(),
            url: v.nullable(v.string()),
          }),
        ),
      }),
    ),
  }),
  search: v.object({
    asset: v.nullable(
      v.object({
        id: v.nullable(id),
        content: v.string(),
        type: v.nullable(type),
        status: v.picklist(['UNKNOWN', 'ALLOWED', 'BLOCKED']),
        watchStatus: v.picklist(['ENABLED', 'DISABLED']),
        createdAt: v.nullable(timestamp),
        updatedAt: v.nullable(timestamp),
      }),
    ),
    reports: v.array(v.object({ id, title: v.string(), status: v.string(), createdAt: timestamp })),
    takedown: v.nullable(
      v.object({
        id: v.union([id, v.string()]),
        status: v.picklist(TAKEDOWN_STATUSES),
        createdAt: timestamp,
        updatedAt: timestamp,
        tasks: v.array(
          v.object({
            id: v.union([id, v.string()]),
            type: v.string(),
            status: v.string(),
            retractionStatus: v.string(),
            takedownProvider: v.nullable(v.object({ name: v.string() })),
            submittedAt: v.nullable(timestamp),
            retractedAt: v.nullable(timestamp),
            externalId: v.nullable(v.string()),
          }),
        ),
      }),
    ),
    blockedBy: v.array(
      v.object({
        consumer: v.picklist(Object.keys(CONSUMERS) as ConsumerSlug[]),
        name: v.picklist(Object.values(CONSUMERS)),
        consumedAt: timestamp,
      }),
    ),
  }),
  details: v.object({
    status: v.picklist(['UNKNOWN', 'ALLOWED', 'BLOCKED']),
    reason: v.optional(v.picklist(['report', 'eth-phishing-detect'])),
    reportId: v.optional(id),
    reportUrl: v.optional(v.pipe(v.string(), v.url())),
  }),
};

const error = (description: string): ResponseDoc => ({ description, error: true });

/** The threat lifecycle's routes, by route name. */
export const LIFECYCLE_OPERATIONS: Record<string, OperationDoc> = {
  'create-report': {
    summary: 'Report content',
    description:
      'Files a report with one pending proposal per asset (1 to 100), all or nothing: when any asset fails, 422 lists each failure with its `errorType` (DUPLICATE_ASSETS, INVALID_FORMAT, ASSET_ALREADY_CORRECT, ALREADY_PENDING_REVIEW, DOMAIN_NOT_ALLOWED) in `data.errors` and nothing is written. Any key; a user key names the organization with `organizationSlug`.',
    tag: 'Threat lifecycle',
    requestExample: {
      title: 'Fake airdrop',
      description: 'Seen on Discord',
      assets: [{ content: 'acme-airdrop.xyz' }],
    },
    responses: {
      200: {
        description: 'The report',
        body: BODY.reportCreated,
        example: {
          id: 1795437857996766,
          createdAt: '2026-11-23T12:44:17.916Z',
          organization: { id: 144742435160229, slug: 'acme', name: 'Acme' },
        },
      },
      422: error('An asset cannot be reported; `data.errors` names each'),
    },
  },
  'list-reports': {
    summary: 'List reports',
    description:
      'The organization’s reports, newest first; `needsCustomerReview` keeps those with a pending proposal, `onlyRejected` those with a rejected one. `nextCursor` and `cursor` carry the same opaque string, null at the end. `id` is always a number; `externalId` is the text id an ingest recorded the report under (null otherwise).',
    tag: 'Threat lifecycle',
    responses: {
      200: {
        description: 'A page of reports',
        body: BODY.reports,
        // The published example, with the numeric report id the published schema gives.
        example: {
          reports: [
            {
              id: 1705314600000123,
              externalId: null,
              title: 'Scam links in #general',
              description: 'Posted by a new member',
              status: 'IN_PROGRESS',
              createdAt: '2024-01-15T10:30:00.000Z',
              updatedAt: '2024-01-15T10:30:00.000Z',
              assets: [{ id: 12345, content: 'https://scam-site.com', type: 'URL', status: 'UNKNOWN' }],
              proposals: [
                {
                  id: 4321,
                  reviewStatus: 'PENDING',
                  asset: { id: 12345, type: 'URL', content: 'https://scam-site.com', status: 'UNKNOWN' },
                },
              ],
            },
          ],
          nextCursor: null,
          cursor: null,
        },
      },
    },
  },
  'review-proposal': {
    summary: 'Review a proposal',
    description:
      'APPROVE blocks the content as a threat of the organization (with `label`, and `brandId` for impersonation labels); REJECT closes it (with `rejectReason`); WATCHLIST closes it as rejected and watchlisted (with `watchlistReason`, and `note` for OTHER), answered as `REJECT` with `watchlisted: true`. `review.label` is the approval’s label, `""` otherwise. `review.comment` is composed from the reason and the note: `Add to watchlist: <note>` for WATCHLIST (without a note, the reason in words: `Dead page`, `Parking page`, `Not enough evidence`); the label for APPROVE, then `: <note>` when there is one; the reject reason in words (`Irrelevant`, `No malicious activity`, `Insufficient evidence`, `Not targeting the organization`, `Decayed`), then `: <note>`, for REJECT. An organization may review 10 proposals in any 24 hours (a stage setting, `reviewDailyLimit`; 0 is unlimited); the next gets 429 with `Retry-After`, the seconds until the oldest review leaves the window. Refused requests use none of the budget.',
    tag: 'Threat lifecycle',
    requestExample: { assetId: 987, decision: 'APPROVE', label: 'General Phishing' },
    responses: {
      200: {
        description: 'The decided proposal and its review',
        body: BODY.reviewed,
        example: {
          proposal: {
            id: 4321,
            reviewStatus: 'APPROVED',
            asset: { id: 987, type: 'URL', content: 'https://scam-site.com', status: 'BLOCKED' },
          },
          review: APPROVAL_EXAMPLE,
          watchlisted: false,
        },
      },
      400: error('A conditional field is missing, e.g. "`label` is required when approving a proposal"'),
      404: error('Proposal not found, or brand not found'),
      409: error('Already reviewed, or `assetId` is not the proposal’s asset'),
      429: error('Review limit of 10 per day reached for this organization.'),
    },
  },
  'list-threats': {
    summary: 'List threats',
    description:
      'The organization’s blocking threats blocked between `startDate` and `endDate` (default: yesterday and today, UTC), in the order of the first `sorting` entry (default id ascending).',
    tag: 'Threat lifecycle',
    requestExample: {
      query: 'phishing',
      assetType: ['URL', 'ADDRESS'],
      startDate: '2024-01-01',
      endDate: '2024-01-31',
      per_page: 50,
      sorting: [{ key: 'blockedAt', direction: 'desc' }],
    },
    responses: {
      200: {
        description: 'A page of threats',
        body: BODY.threats,
        example: {
          threats: [
            {
              id: 12345,
              externalId: null,
              content: 'https://fake-site.com',
              type: 'URL',
              blockedAt: '2024-01-15T10:30:00.000Z',
            },
            {
              id: 12346,
              externalId: null,
              content: 'eip155:1:0x1234567890123456789012345678901234567890',
              type: 'ADDRESS',
              blockedAt: '2024-01-15T09:15:00.000Z',
            },
          ],
          next_page: null,
        },
      },
    },
  },
  'list-takedowns': {
    summary: 'List takedowns',
    description:
      'The organization’s takedowns, newest change first unless `sorting` says otherwise. Statuses: TODO, IN_PROGRESS, PENDING_INPUT, COMPLETED, CANCELLED; `livenessStatus` (ALIVE, DEAD, UNKNOWN; UNKNOWN until a check sets it) filters on the target’s liveness. Any key: a user key names the organization with `organizationSlug` (an ACTIVE membership), an organization key naming another organization gets 403. `id` is always a number; `externalId` is the text id an ingest recorded the takedown under (null otherwise).',
    tag: 'Threat lifecycle',
    requestExample: { per_page: 100, takedownStatus: ['TODO', 'IN_PROGRESS'], livenessStatus: ['ALIVE'] },
    responses: {
      200: {
        description: 'A page of takedowns',
        body: BODY.takedowns,
        example: {
          takedowns: [
            {
              id: 188233913356301,
              externalId: 'td-4821',
              status: 'IN_PROGRESS',
              createdAt: '2026-11-20T09:00:00.000Z',
              updatedAt: '2026-11-22T15:30:00.000Z',
              asset: {
                id: 144742435160230,
                content: 'https://acme-airdrop.xyz/claim',
                type: 'URL',
                livenessStatus: 'ALIVE',
              },
              assignee: { id: 7, fullName: 'Dana Analyst' },
              brand: { id: 98231445120331, name: 'Acme Wallet', slug: 'acme-wallet' },
            },
          ],
          next_page: null,
        },
      },
      403: error('An organization key named another organization, or a user key is not an ACTIVE member'),
    },
  },
  'list-brands': {
    summary: 'List brands',
    description:
      'Every live brand of the organization, in one response, with the stable id reviews take as `brandId` and its configuration: colors, the terms that name it and those that rule a match out, tickers, links, whether it uses the organization’s legal documents, its own legal documents and its trademark registrations (empty where never set).',
    tag: 'Threat lifecycle',
    responses: {
      200: {
        description: 'The brands',
        body: BODY.brands,
        example: {
          brands: [
            {
              id: 98231445120331,
              slug: 'acme-wallet',
              name: 'Acme Wallet',
              type: 'ORGANIZATION',
              brandColors: ['#0052FF'],
              includedTerms: ['acme wallet'],
              excludedTerms: ['acme hardware'],
              tickers: ['ACME'],
              avatarUrl: 'https://acme.example/logo.png',
              websiteUrl: 'https://acme.example',
              twitterHandle: 'acmewallet',
              useOrganizationDocs: false,
              legalDocuments: [{ id: 11, name: 'Letter of Authorization', url: 'https://acme.example/loa.pdf' }],
              trademarkRegistrations: [
                { id: 21, mark: 'ACME', registrationNumber: '5123456', jurisdiction: 'USPTO', url: null },
              ],
            },
          ],
        },
      },
    },
  },
  'asset-details': {
    summary: 'Asset details (deprecated)',
    description:
      'The check’s verdict and why: `report` when the service’s own threat blocks it, `eth-phishing-detect` when that list does. With `report` (the service’s own block, of the content itself or inherited from a parent domain), `reportId` names the report behind it, and `reportUrl` always accompanies it: every block of the service stands on a report (a fixture, import or ingest that records a blocking threat without naming its report creates one, closed, with the threat as its approved proposal). The report is the one behind the newest blocking threat of the caller’s organizations, else of any organization: its public page shows only the report’s status, dates and approved assets, whose verdicts are public already. `reportUrl` is the stage’s `reportUrlBase` followed by the id, by default the public report page `GET /v2/reports/{reportId}` on the host the request came to. Deprecated in favour of the asset check.',
    tag: 'Threat lifecycle',
    requestExample: { content: 'https://acme-airdrop.xyz/claim' },
    responses: {
      200: {
        description: 'The verdict',
        body: BODY.details,
        example: {
          status: 'BLOCKED',
          reason: 'report',
          reportId: 1795437857996766,
          reportUrl: 'https://api.example.com/v2/reports/1795437857996766',
        },
      },
    },
  },
  'search-asset': {
    summary: 'Search an asset',
    description:
      'What the service knows of one asset, by `content` or `assetId` (one is required). `asset` is non-null whenever anything the asset check consults knows the content (allowlisted by any organization, blocked by the service or an external list) or any organization has a record of it (a threat of any status, ingested or reported); its `status` is the asset check’s verdict. `blockedBy` lists who consumes the service’s own block of the content, oldest first, each as `{consumer, name, consumedAt}`. In the published service a consumer is a partner platform; a self-hosted service has none, so its consumers are its own distribution channels: `blocklist` (`Prefix sync`: when the BLOCKED verdict entered the published snapshots and feeds, which is when the change that made it so was recorded), `taxii` (`TAXII blocked collection`: when the content entered that collection) and `webhook` (`Webhooks`: when the change was first delivered to one of the caller’s organizations’ webhooks). A block the content inherits from a parent domain is the parent’s. It is empty when the service does not block the content (an external list alone never puts a content in these channels’ blocks), and a channel that has not taken the block is left out. The earlier items `{source, reason}` are gone: they named blocking sources, not consumers. `reports` and `takedown` (with its provider `tasks`, each `{id, type, status, retractionStatus, takedownProvider, submittedAt, retractedAt, externalId}`; an empty array, since this service records no provider tasks yet) are the caller’s organizations’ only (a user key: its ACTIVE memberships). Another organization’s reports, proposals and reviews never show, nor their times: the asset’s `createdAt` and `updatedAt` are the earliest and latest of the caller’s own records and the public verdict’s last change (the `changedAt` of `POST /asset/changelog`), and null when none of these dates it. By `assetId` alone, an id that nothing the caller may know of names (no record or verdict, or only another organization’s pending proposal) answers `asset: null` with empty lists, one answer for both.',
    tag: 'Threat lifecycle',
    requestExample: { content: 'https://acme-airdrop.xyz/claim' },
    responses: {
      200: {
        description: 'The asset, or null when nothing the service consults (or the caller may know of) knows it',
        body: BODY.search,
        example: {
          asset: {
            id: 144742435160230,
            content: 'https://acme-airdrop.xyz/claim',
            type: 'URL',
            status: 'BLOCKED',
            watchStatus: 'DISABLED',
            createdAt: '2026-11-21T09:58:12.000Z',
            updatedAt: '2026-11-21T10:00:01.000Z',
          },
          reports: [
            { id: 1795437857996766, title: 'Fake airdrop', status: 'CLOSED', createdAt: '2026-11-21T09:58:12.000Z' },
          ],
          takedown: {
            id: 1795437901000042,
            status: TAKEDOWN_STATUSES[0],
            createdAt: '2026-11-21T10:05:00.000Z',
            updatedAt: '2026-11-21T10:05:00.000Z',
            tasks: [],
          },
          blockedBy: [
            { consumer: 'blocklist', name: 'Prefix sync', consumedAt: '2026-11-21T10:00:01.000Z' },
            { consumer: 'webhook', name: 'Webhooks', consumedAt: '2026-11-21T10:00:03.000Z' },
          ],
        },
      },
    },
  },
  'get-report-page': {
    summary: 'Public report page',
    description:
      'The page the `reportUrl` of `POST /asset/details` leads to, readable without a key: the report’s id, status, and creation and update dates, and each asset whose proposal was approved with the service’s current verdict; pending and rejected proposals never show. It never shows who reported, how to reach them, the report’s text or its reviews. An unknown id answers a 404 page.',
    tag: 'Description and pages',
    responses: {
      200: { description: 'The page', mediaType: 'text/html' },
      404: { description: 'No report has this id', mediaType: 'text/html' },
    },
  },
};
