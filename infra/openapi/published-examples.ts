import { shippedSuffixes } from '../../shared/db/adapters/public-suffix-file.ts';
import { detectAssetType } from '../../shared/domain/allowlist/asset-detection.ts';
import { entryKeyOf } from '../../shared/domain/check/index.ts';
import { SOURCE_CATALOGUE } from '../../shared/domain/detections/source-catalogue.ts';
import { assetIdOf } from '../../shared/domain/lifecycle/reports.ts';
import { bucketsOf, ORGANIZATION_EXAMPLE } from './insights-operations.ts';
import { APPROVAL_EXAMPLE } from './lifecycle-operations.ts';

/**
 * One request with the answer it gets, as a named OpenAPI example: the generator puts `parameters`
 * and `body` on the request under `name`, and `response` on the response of `status` under the same
 * name, so a client (and the contract suite) can pair them. Values that the service assigns (ids,
 * timestamps, request ids) are examples of their kind; the suite compares the fields present, and
 * for an error also its code and message.
 */
export type ExampleDoc = {
  summary: string;
  /** Path and query parameters by name, as the client sends them (strings, as on the wire). */
  parameters?: Record<string, string>;
  body?: unknown;
  /** Sent without an API key (`x-without-key` on the response example). */
  withoutKey?: boolean;
  status: number;
  response: unknown;
};

/** An error body as this service writes it: the published `code` and `message`, flat and wrapped, and a request id. */
const failure = (code: string, message: string, data?: unknown) => ({
  code,
  message,
  ...(data === undefined ? {} : { data }),
  error: { code, message },
  requestId: '5b1f6c2e-8d3a-4f7e-9c41-2a6d0e8b7f13',
});

const ORG_KEY_REQUIRED = failure('UNAUTHORIZED', 'API key with organization access required');

/** The asset a successful add also answers (a documented addition to the published result). */
const added = (id: number, content: string, type: string) => ({
  content,
  success: true,
  id,
  asset: {
    id,
    content,
    type,
    status: 'ALLOWED',
    description: null,
    group: null,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
  },
});

/** The suffix data the examples' content is canonicalized with, as the service's. */
const suffixes = shippedSuffixes();

/** The service's stable id for reported content, the `assetId` a review must name. */
const reportedAssetId = (content: string): number => {
  const key = entryKeyOf(suffixes, content, detectAssetType(suffixes, content));
  if (key === undefined) throw new Error(`${content} has no check key`);
  return assetIdOf(key);
};

/**
 * The examples of the published API reference, by route name and example name, with the data
 * the contract suite seeds for them (test/fixtures/contract-data.ts): each example runs in an
 * organization of its own holding the groups `Wallets`, `Websites`, `Socials` and `Marketing`
 * (ids 1 to 4, five assets in group 4), the allowlisted `https://existing.com`, report 1234 whose
 * proposals 4321 and 4322 are about `https://scam-site.com` and `https://parked-domain.com`, a
 * takedown of the first, and a threat blocked in January 2024; `https://reported-scam.example` is
 * blocked by an approved report of another organization.
 * Where the published page and this service's documented decisions differ (numeric report ids,
 * both cursor names, another organization's group being 404), the example follows the decision.
 * Published examples that need a state no request can set up are left out: the 500 bodies, the
 * 429 of a spent review budget, and 403s for records of another organization, whose ids are
 * assigned at run time; so is the 400 of 1,001 assets, whose body would be most of this description.
 * Also left out: the success of an asset update (asset ids are assigned at run time), the
 * `reporterKind`/`reviewerKind` body of the deprecated reports list (unmerged pages only), and the
 * detections list, whose published answer needs detections no request creates.
 */
export const PUBLISHED_EXAMPLES: Record<string, Record<string, ExampleDoc>> = {
  'create-report': {
    duplicateAssets: {
      summary: 'The same asset twice in one report',
      body: {
        title: 'Scam site',
        description: 'Reported twice by mistake',
        assets: [{ content: 'scam.example' }, { content: 'scam.example' }],
      },
      status: 422,
      response: failure(
        'UNPROCESSABLE_CONTENT',
        'Report creation failed: Duplicate assets found. 2 asset(s) appear multiple times in the same report.',
        {
          errors: [
            {
              asset: 'scam.example',
              errorType: 'DUPLICATE_ASSETS',
              message: 'This asset appears multiple times in the same report',
              suggestion:
                'Remove duplicate assets from your submission - each asset should only appear once per report',
            },
          ],
        },
      ),
    },
    invalidAssets: {
      summary: 'Two of three assets cannot be reported (`decen-masters.com` is on the ignore list)',
      body: {
        title: 'Phishing kit',
        description: 'Three links from one campaign',
        assets: [{ content: 'http' }, { content: 'decen-masters.com' }, { content: 'https://kit-phish.example' }],
      },
      status: 422,
      response: failure(
        'UNPROCESSABLE_CONTENT',
        'Report creation failed: 2 of 3 assets are invalid. All assets must be valid to create a report.',
        {
          errors: [
            {
              asset: 'http',
              errorType: 'INVALID_FORMAT',
              message: "This asset couldn't be processed due to invalid format",
              suggestion:
                'Use valid URLs (https://example.com), domains (example.com), or blockchain addresses (eip155:1:0x123...)',
            },
            {
              asset: 'decen-masters.com',
              errorType: 'DOMAIN_NOT_ALLOWED',
              message: "This domain cannot be reported as it's on the ignore list",
              suggestion:
                'This domain is currently excluded from reports based on our content policy. Please reach out to us if you believe this is an error',
            },
          ],
        },
      ),
    },
  },
  'asset-details': {
    reported: {
      summary: 'Content a report of the service blocks',
      body: { content: 'https://reported-scam.example' },
      status: 200,
      response: {
        status: 'BLOCKED',
        reason: 'report',
        reportId: 1234,
        reportUrl: 'https://api.example.com/v2/reports/1234',
      },
    },
  },
  'list-verdicts': {
    sdkFirstPage: {
      summary: 'The first page of blocked URLs, as the published client loop sends it',
      body: { type: 'URL', status: 'BLOCKED', per_page: 500, next_page: null },
      status: 200,
      response: {
        assets: [
          {
            type: 'URL',
            content: 'phishing-site.com',
            status: 'BLOCKED',
            watchStatus: 'DISABLED',
            updatedAt: '2023-06-15T10:30:00.000Z',
            version: '00000001764000000000-0000',
          },
        ],
        next_page: null,
      },
    },
  },
  'search-asset': {
    byContent: {
      summary: 'A reported asset, with its reports and its takedown',
      body: { content: 'https://scam-site.com' },
      status: 200,
      response: {
        asset: {
          id: reportedAssetId('https://scam-site.com'),
          content: 'https://scam-site.com',
          type: 'URL',
          status: 'UNKNOWN',
          watchStatus: 'DISABLED',
          createdAt: '2024-01-15T10:30:00.000Z',
          updatedAt: '2024-01-15T10:30:00.000Z',
        },
        reports: [{ id: 1234, title: 'Scam site', status: 'TODO', createdAt: '2024-01-15T10:30:00.000Z' }],
        takedown: {
          id: 7001,
          status: 'TODO',
          createdAt: '2024-01-16T09:00:00.000Z',
          updatedAt: '2024-01-16T09:00:00.000Z',
          tasks: [],
        },
        blockedBy: [],
      },
    },
    blockedBy: {
      summary: 'Blocked content with the channels that distribute its verdict, asked by the reporting organization',
      body: { content: 'https://reported-scam.example' },
      status: 200,
      response: {
        asset: {
          id: reportedAssetId('https://reported-scam.example'),
          content: 'https://reported-scam.example',
          type: 'URL',
          status: 'BLOCKED',
          watchStatus: 'DISABLED',
          createdAt: '2026-03-01T10:00:00.000Z',
          updatedAt: '2026-03-01T10:00:00.000Z',
        },
        reports: [{ id: 1234, title: 'Reported scam', status: 'TODO', createdAt: '2026-03-01T10:00:00.000Z' }],
        takedown: null,
        blockedBy: [{ consumer: 'blocklist', name: 'Prefix sync', consumedAt: '2026-03-01T10:05:00.000Z' }],
      },
    },
  },
  'get-changelog': {
    typeOnly: {
      summary: 'The changes of one asset type, with only the documented field',
      body: { type: 'URL' },
      status: 200,
      response: {
        changes: [
          {
            content: 'phishing-site.com',
            type: 'URL',
            status: 'BLOCKED',
            watchStatus: 'DISABLED',
            changedAt: '2026-03-01T10:00:00.000Z',
            version: '00000001764000000000-0000',
          },
        ],
        next_page: null,
        version: '00000001764000000000-0000',
      },
    },
  },
  'list-brands': {
    publishedFields: {
      summary: 'Every brand with the published configuration fields',
      status: 200,
      response: {
        brands: [
          {
            id: 98231445120331,
            slug: 'acme-wallet',
            name: 'Acme Wallet',
            type: 'ORGANIZATION',
            brandColors: [],
            includedTerms: [],
            excludedTerms: [],
            tickers: [],
            avatarUrl: null,
            websiteUrl: null,
            twitterHandle: null,
            useOrganizationDocs: false,
            legalDocuments: [],
            trademarkRegistrations: [],
          },
        ],
      },
    },
  },
  'list-reports': {
    firstPage: {
      summary: 'The newest reports (ids are numbers; `cursor` and `nextCursor` carry the same cursor)',
      parameters: { limit: '1' },
      status: 200,
      response: {
        reports: [
          {
            id: 1234,
            externalId: null,
            title: 'Scam site',
            description: 'Reported by the contract suite',
            createdAt: '2024-01-15T10:30:00.000Z',
            updatedAt: '2024-01-15T10:30:00.000Z',
            status: 'TODO',
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
        nextCursor: 'next_page_cursor_string',
        cursor: 'next_page_cursor_string',
      },
    },
    withoutKey: {
      summary: 'No organization key',
      withoutKey: true,
      status: 401,
      response: ORG_KEY_REQUIRED,
    },
    invalidDate: {
      summary: 'A date that is not ISO 8601',
      parameters: { startDate: 'last-tuesday' },
      status: 400,
      response: failure('BAD_REQUEST', 'Invalid date format. Use ISO 8601 format.'),
    },
  },
  'review-proposal': {
    approve: {
      summary: 'Approve: the content becomes BLOCKED',
      parameters: { proposalId: '4321' },
      body: { assetId: reportedAssetId('https://scam-site.com'), decision: 'APPROVE', label: 'General Phishing' },
      status: 200,
      response: {
        proposal: {
          id: 4321,
          reviewStatus: 'APPROVED',
          asset: {
            id: reportedAssetId('https://scam-site.com'),
            type: 'URL',
            content: 'https://scam-site.com',
            status: 'BLOCKED',
          },
        },
        review: APPROVAL_EXAMPLE,
        watchlisted: false,
      },
    },
    watchlist: {
      summary: 'Watchlist: answered as a rejection with the content watchlisted',
      parameters: { proposalId: '4322' },
      body: {
        assetId: reportedAssetId('https://parked-domain.com'),
        decision: 'WATCHLIST',
        watchlistReason: 'OTHER',
        note: 'Parking page',
      },
      status: 200,
      response: {
        proposal: {
          id: 4322,
          reviewStatus: 'REJECTED',
          asset: {
            id: reportedAssetId('https://parked-domain.com'),
            type: 'URL',
            content: 'https://parked-domain.com',
            status: 'UNKNOWN',
          },
        },
        review: {
          id: 55124,
          decision: 'REJECT',
          label: '',
          brandId: null,
          comment: 'Add to watchlist: Parking page',
          createdAt: '2026-08-06T10:32:00.000Z',
        },
        watchlisted: true,
      },
    },
    labelMissing: {
      summary: 'An approval without a label',
      parameters: { proposalId: '4321' },
      body: { assetId: reportedAssetId('https://scam-site.com'), decision: 'APPROVE' },
      status: 400,
      response: failure('BAD_REQUEST', '`label` is required when approving a proposal'),
    },
    unknownProposal: {
      summary: 'A proposal that is not the organization’s',
      parameters: { proposalId: '999999' },
      body: { assetId: reportedAssetId('https://scam-site.com'), decision: 'REJECT', rejectReason: 'irrelevant' },
      status: 404,
      response: failure('NOT_FOUND', 'Proposal not found'),
    },
    assetMismatch: {
      summary: 'An `assetId` that is not the proposal’s asset',
      parameters: { proposalId: '4321' },
      body: { assetId: 1, decision: 'REJECT', rejectReason: 'irrelevant' },
      status: 409,
      response: failure('CONFLICT', "assetId does not match the proposal's asset"),
    },
  },
  'list-threats': {
    published: {
      summary: 'Blocked URLs and addresses matching a query in January 2024, newest block first',
      body: {
        query: 'phishing',
        assetType: ['URL', 'ADDRESS'],
        startDate: '2024-01-01',
        endDate: '2024-01-31',
        per_page: 50,
        sorting: [{ key: 'blockedAt', direction: 'desc' }],
      },
      status: 200,
      response: {
        threats: [
          {
            id: 12345,
            externalId: null,
            content: 'https://fake-phishing-site.com',
            type: 'URL',
            blockedAt: '2024-01-15T10:30:00.000Z',
          },
        ],
        next_page: null,
      },
    },
  },
  'list-takedowns': {
    published: {
      summary: 'Open takedowns of live assets, as the published loop asks for them',
      body: { per_page: 100, takedownStatus: ['TODO', 'IN_PROGRESS'], livenessStatus: ['ALIVE'] },
      status: 200,
      response: {
        takedowns: [
          {
            id: 7001,
            externalId: null,
            status: 'TODO',
            createdAt: '2026-03-01T10:00:00.000Z',
            updatedAt: '2026-03-01T10:00:00.000Z',
            asset: { id: 12345, content: 'https://scam-site.com', type: 'URL', livenessStatus: 'ALIVE' },
            assignee: null,
            brand: null,
          },
        ],
        next_page: null,
      },
    },
  },
  'create-assets': {
    allAdded: {
      summary: 'A URL, an address and a handle, each detected and allowlisted',
      body: {
        assets: [
          { content: 'https://example.com' },
          { content: '0x1234567890abcdef1234567890abcdef12345678' },
          { content: '@ourcompany' },
        ],
      },
      status: 200,
      response: {
        results: [
          added(12345, 'https://example.com', 'URL'),
          added(12346, '0x1234567890abcdef1234567890abcdef12345678', 'ADDRESS'),
          added(12347, '@ourcompany', 'TWITTER'),
        ],
        successCount: 3,
        errorCount: 0,
      },
    },
    partlyAdded: {
      summary: 'One added, one unrecognisable, one already allowlisted',
      body: {
        assets: [
          { content: 'https://example.com' },
          { content: 'invalid-content' },
          { content: 'https://existing.com' },
        ],
      },
      status: 200,
      response: {
        results: [
          added(12345, 'https://example.com', 'URL'),
          { content: 'invalid-content', success: false, error: 'Invalid asset format' },
          { content: 'https://existing.com', success: false, error: 'Asset already exists in organization' },
        ],
        successCount: 1,
        errorCount: 2,
      },
    },
    withoutKey: {
      summary: 'No organization key',
      body: { assets: [{ content: 'https://example.com' }] },
      withoutKey: true,
      status: 401,
      response: ORG_KEY_REQUIRED,
    },
    unknownGroup: {
      summary: 'A group the organization does not have',
      body: { assets: [{ content: 'https://example.com', groupId: 999 }] },
      status: 404,
      response: failure('NOT_FOUND', 'Group with ID 999 not found'),
    },
  },
  'update-asset': {
    nothingToChange: {
      summary: 'None of name, description or groupId',
      parameters: { assetId: '12345' },
      body: { assetId: 12345 },
      status: 400,
      response: failure('BAD_REQUEST', 'At least one field (name, description, or groupId) must be provided'),
    },
    withoutKey: {
      summary: 'No organization key',
      parameters: { assetId: '12345' },
      body: { assetId: 12345, name: 'Updated Name' },
      withoutKey: true,
      status: 401,
      response: ORG_KEY_REQUIRED,
    },
    unknownAsset: {
      summary: 'An asset id the service does not have',
      parameters: { assetId: '12345' },
      body: { assetId: 12345, name: 'Updated Name', description: 'Updated description', groupId: 2 },
      status: 404,
      response: failure('NOT_FOUND', 'Asset with ID 12345 not found'),
    },
  },
  'update-asset-group': {
    renamed: {
      summary: 'A new name',
      parameters: { groupId: '4' },
      body: { groupId: 4, name: 'Renamed Group' },
      status: 200,
      response: { id: 4, name: 'Renamed Group' },
    },
    nameMissing: {
      summary: 'No name',
      parameters: { groupId: '4' },
      body: { groupId: 4 },
      status: 400,
      response: failure('BAD_REQUEST', 'Group name is required'),
    },
    nameTooLong: {
      summary: 'A name of 256 characters',
      parameters: { groupId: '4' },
      body: { groupId: 4, name: 'n'.repeat(256) },
      status: 400,
      response: failure('BAD_REQUEST', 'Group name must be between 1 and 255 characters'),
    },
    withoutKey: {
      summary: 'No organization key',
      parameters: { groupId: '4' },
      body: { groupId: 4, name: 'Renamed Group' },
      withoutKey: true,
      status: 401,
      response: ORG_KEY_REQUIRED,
    },
    unknownGroup: {
      summary: 'A group id the organization does not have',
      parameters: { groupId: '44' },
      body: { groupId: 44, name: 'Renamed Group' },
      status: 404,
      response: failure('NOT_FOUND', 'Group with ID 44 not found'),
    },
    nameTaken: {
      summary: 'The name of another group of the organization',
      parameters: { groupId: '4' },
      body: { groupId: 4, name: 'Wallets' },
      status: 409,
      response: failure('CONFLICT', 'A group with this name already exists'),
    },
  },
  'delete-asset-group': {
    deleted: {
      summary: 'Its five assets become ungrouped',
      parameters: { groupId: '4' },
      body: { groupId: 4 },
      status: 200,
      response: { success: true, id: 4, unassignedAssetCount: 5 },
    },
    withoutKey: {
      summary: 'No organization key',
      parameters: { groupId: '4' },
      body: { groupId: 4 },
      withoutKey: true,
      status: 401,
      response: ORG_KEY_REQUIRED,
    },
    mismatchedBody: {
      summary: 'A body that names another group than the path',
      parameters: { groupId: '4' },
      body: { groupId: 3 },
      status: 400,
      response: failure('BAD_REQUEST', 'Path parameter groupId does not match body'),
    },
    unknownGroup: {
      summary: 'A group id the organization does not have (or no longer has)',
      parameters: { groupId: '44' },
      body: { groupId: 44 },
      status: 404,
      response: failure('NOT_FOUND', 'Group with ID 44 not found'),
    },
    malformedId: {
      summary: 'A group id that is not a positive integer',
      parameters: { groupId: 'four' },
      status: 400,
      response: failure('BAD_REQUEST', 'Invalid group ID'),
    },
  },

  'check-asset': {
    proxyTest: {
      summary: 'The call the published proxy guide tests with: a popular domain',
      body: { type: 'URL', content: 'google.com' },
      status: 200,
      response: { status: 'ALLOWED', source: 'service', sources: [{ source: 'service', status: 'ALLOWED' }] },
    },
  },
  'submit-assets': {
    sdkExample: {
      summary: 'An address, a domain and a URL submitted for scanning; `scanId` only where a scan started at once',
      body: {
        assets: ['0x1234567890abcdef1234567890abcdef12345678', 'suspicious-domain.com', 'https://fake-exchange.net'],
      },
      status: 200,
      response: {
        submittedAssets: [
          { asset: '0x1234567890abcdef1234567890abcdef12345678', assetId: 12346 },
          { asset: 'suspicious-domain.com', assetId: 12345, scanId: 67890 },
          { asset: 'https://fake-exchange.net', assetId: 12347, scanId: 67891 },
        ],
      },
    },
  },
  'create-dispute': {
    published: {
      summary: 'A dispute of blocked content, with a contact email',
      body: {
        content: 'https://reported-scam.example',
        email: 'owner@reported-scam.example',
        description: 'This is our own site',
      },
      status: 200,
      response: { id: '12345', content: 'https://reported-scam.example' },
    },
  },
  'search-reports': {
    byContents: {
      summary: 'Whether the organization reported some contents already, before it reports them',
      body: { assetContents: ['https://reported-scam.example', 'phishing.example'] },
      status: 200,
      response: {
        results: [
          {
            asset: 'https://reported-scam.example',
            reports: [{ id: 1234, status: 'TODO', createdAt: '2026-03-01T10:00:00.000Z' }],
          },
          { asset: 'phishing.example', reports: [] },
        ],
        reports: [{ id: 1234, status: 'TODO', assets: ['https://reported-scam.example'] }],
        totalCount: 1,
      },
    },
  },
  'parse-assets': {
    published: {
      summary: 'Content normalized to its asset: a URL loses its scheme, query and the case of its host',
      body: { content: 'https://WWW.Example.com/login?next=1' },
      status: 200,
      response: {
        content: 'www.example.com/login',
        submittedContent: 'https://WWW.Example.com/login?next=1',
        type: 'URL',
      },
    },
    normalizedUrl: {
      summary: 'A URL, normalized by the glossary rules',
      body: { content: 'https://Scam-Site.COM/login/?utm_source=x#top' },
      status: 200,
      response: {
        content: 'scam-site.com/login',
        submittedContent: 'https://Scam-Site.COM/login/?utm_source=x#top',
        type: 'URL',
      },
    },
    address: {
      summary: 'An EVM address, lower-cased',
      body: { content: '0xAbCdEf0123456789abcdef0123456789ABCDEF01' },
      status: 200,
      response: {
        content: '0xabcdef0123456789abcdef0123456789abcdef01',
        submittedContent: '0xAbCdEf0123456789abcdef0123456789ABCDEF01',
        type: 'ADDRESS',
      },
    },
    noType: {
      summary: 'Content no asset type fits: the body is null',
      body: { content: 'hello world' },
      status: 200,
      response: null,
    },
  },
  'list-healthchecks': {
    registry: {
      summary: 'The registry of healthchecks: a client calls the implemented ones by their path',
      body: {},
      status: 200,
      response: {
        checks: [
          {
            id: 'reviewing.backlog',
            title: 'Reviewing backlog',
            path: '/healthchecks/reviewing/backlog',
            implemented: true,
          },
        ],
      },
    },
  },
  'healthcheck-reviewing-backlog': {
    published: {
      summary: 'The pending proposals graded against the thresholds',
      body: {},
      status: 200,
      response: {
        id: 'reviewing.backlog',
        severity: 'ok',
        observed: 2,
        threshold: { warn: 50, fail: 200 },
        findings: [],
        suggestedAction: 'No action needed',
      },
    },
  },
  'get-queues-snapshot': {
    buckets: {
      summary: 'The review and takedown queues with their age buckets',
      body: { windowHours: 168 },
      status: 200,
      response: {
        queues: [
          {
            name: 'review',
            size: 2,
            oldestAgeSeconds: 86400,
            p50AgeSeconds: 86400,
            slaSeconds: 86400,
            breaching: true,
            buckets: bucketsOf([0, 0, 0, 0, 2]),
            staleCount: 2,
          },
        ],
        windowHours: 168,
      },
    },
  },
  'list-detection-sources': {
    scopes: {
      summary: 'The sources an organization can configure, each with the scopes it supports',
      status: 200,
      response: { sources: SOURCE_CATALOGUE },
    },
  },
  'list-user-organizations': {
    published: {
      summary: 'The key’s organization with its services, integrations and documents',
      body: {},
      status: 200,
      response: { organizations: [ORGANIZATION_EXAMPLE] },
    },
  },
  'get-user-organization': {
    published: {
      summary: 'One organization by its own slug, asked with its key',
      parameters: { slug: 'acme' },
      status: 200,
      response: ORGANIZATION_EXAMPLE,
    },
  },
};
