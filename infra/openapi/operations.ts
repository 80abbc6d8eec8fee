import { BLOCKLIST_OPERATIONS } from './blocklist-operations.ts';
import { DETECTION_OPERATIONS } from './detection-operations.ts';
import EXAMPLES from './examples.json' with { type: 'json' };
import { INSIGHTS_OPERATIONS } from './insights-operations.ts';
import { INTAKE_OPERATIONS } from './intake-operations.ts';
import { LIFECYCLE_OPERATIONS } from './lifecycle-operations.ts';
import type { OperationDoc, ResponseDoc } from './operation-doc.ts';
import { BODY } from './responses.ts';
import { TAXII_OPERATIONS } from './taxii-operations.ts';
import { WEBHOOK_OPERATIONS } from './webhook-operations.ts';

const { metrics: METRICS_EXAMPLE, asset: ASSET_EXAMPLE, checkResult: CHECK_EXAMPLE } = EXAMPLES;

const error = (description: string): ResponseDoc => ({ description, error: true });
const NAME_TAKEN = error('A group with this name already exists');
const namedGroup = (description: string, name: string): ResponseDoc => ({
  description,
  body: BODY.group,
  example: { id: 4, name },
});

/**
 * The description of every route of `infra/routes.ts`, by route name. A route without an entry
 * here fails `npm run openapi` and the description test.
 */
export const OPERATIONS: Record<string, OperationDoc> = {
  ...LIFECYCLE_OPERATIONS,
  ...BLOCKLIST_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...INTAKE_OPERATIONS,
  ...INSIGHTS_OPERATIONS,
  ...DETECTION_OPERATIONS,
  ...TAXII_OPERATIONS,
  'list-asset-groups': {
    summary: 'List asset groups',
    description:
      'All groups of the organization in one response, without pagination, ordered by id; groups with zero assets are included.',
    tag: 'Asset groups',
    responses: {
      200: {
        description: 'The groups',
        body: BODY.groups,
        example: { groups: [{ id: 1, name: 'Wallets', assetCount: 2 }] },
      },
    },
  },
  'create-asset-group': {
    summary: 'Create an asset group',
    description:
      'Creates a group with zero assets. The name is trimmed, 1 to 255 characters, and unique within the organization (compared case-sensitively); there is no limit on the number of groups.',
    tag: 'Asset groups',
    requestExample: { name: 'Wallets' },
    responses: { 200: namedGroup('The new group', 'Wallets'), 409: NAME_TAKEN },
  },
  'update-asset-group': {
    summary: 'Rename an asset group',
    description:
      'Renames a group; the same name rules as on create apply. A body `groupId` is optional and must match the path.',
    tag: 'Asset groups',
    requestExample: { name: 'Hot wallets' },
    responses: {
      200: namedGroup('The renamed group', 'Hot wallets'),
      404: error('No group with this id in the organization'),
      409: NAME_TAKEN,
    },
  },
  'delete-asset-group': {
    summary: 'Delete an asset group',
    description:
      'Deletes a group; its assets become ungrouped. A body `{groupId}` is optional and must match the path. The published texts answer a bad id: `Invalid group ID` (not a positive integer), `Group ID is required` (empty), `Path parameter groupId does not match body`.',
    tag: 'Asset groups',
    responses: {
      200: {
        description: 'The group is gone',
        body: BODY.groupRemoved,
        example: { success: true, id: 4, unassignedAssetCount: 2 },
      },
      400: error('A malformed or empty group id, or a body naming another group'),
      404: error('No group with this id in the organization'),
    },
  },
  'list-assets': {
    summary: 'List assets',
    description:
      'The organization’s assets, newest first, with cursor pagination. Filters combine (logical AND): `type`, `groupId` (-1 for ungrouped assets), `query` (case-insensitive substring of content, name and description). A page may hold fewer than `per_page` assets while more exist; only `next_page: null` means the end. `next_page` is opaque and bound to the filters.',
    tag: 'Assets',
    responses: {
      200: {
        description: 'A page of assets',
        body: BODY.assetPage,
        example: { assets: [ASSET_EXAMPLE], next_page: null },
      },
    },
  },
  'create-assets': {
    summary: 'Add assets',
    description:
      'Adds 1 to 1,000 assets to the organization’s allowlist (every stored asset is ALLOWED). `type` is optional: it is detected from `content` (URL, PAGE on a hosting platform, ADDRESS, TWITTER for `@handle`, TELEGRAM, DISCORD, EMAIL, platform types by URL). One result per item, in input order: `success: true` with the new asset, or `success: false` with `Invalid asset format` (content not recognisable, or not valid for its type) or `Asset already exists in organization` (a live asset with the same type and canonical content, or the same asset earlier in the request). A failed item leaves nothing behind. Invalid input (an item that is not an object, missing content, an invalid group id, more than 1,000 items) is a 400 and a group that is not the organization’s a 404, with nothing written. The add is all or nothing: its deadline grows by one request budget per 50 assets; an add larger than one transaction is staged (in no listing, count or check) and committed by one write, so a 503 before the commit leaves nothing and a 503 after it means the add is committed and is published by the interrupted-writes job or by a retry of the same body, which answers 200 with the results and never adds an asset twice.',
    tag: 'Assets',
    requestExample: {
      assets: [
        { content: 'https://example.com' },
        { content: '0x1234567890abcdef1234567890abcdef12345678' },
        { content: '@ourcompany' },
      ],
    },
    responses: {
      200: {
        description: 'One result per submitted asset, in input order',
        body: BODY.assetsAdded,
        example: {
          results: [
            { content: 'https://acme.com', success: true, id: ASSET_EXAMPLE.id, asset: ASSET_EXAMPLE },
            { content: 'not a url at all', success: false, error: 'Invalid asset format' },
          ],
          successCount: 1,
          errorCount: 1,
        },
      },
      404: error('A named group is not one of the organization’s'),
    },
  },
  'update-asset': {
    summary: 'Update an asset',
    description:
      'Changes the name, the description (or null) or the group (or null) of an asset. A body `assetId` is optional and must match the path.',
    tag: 'Assets',
    requestExample: { description: 'Main site', groupId: null },
    responses: {
      200: {
        description: 'The updated asset, with its `groupId`',
        body: BODY.assetUpdated,
        example: { ...ASSET_EXAMPLE, groupId: 1 },
      },
      403: error('The asset does not belong to the organization, or the key lacks `write`'),
      404: error('No asset with this id, or no such group'),
    },
  },
  'delete-asset': {
    summary: 'Remove an asset',
    description:
      'Removes an asset from the organization’s allowlist (soft delete). A body `{assetId}` is optional and must match the path.',
    tag: 'Assets',
    requestExample: { assetId: 1767323045000123 },
    responses: {
      200: {
        description: 'The asset is removed',
        body: BODY.assetRemoved,
        example: { success: true, id: 1767323045000123 },
      },
      403: error('The asset does not belong to the organization, or the key lacks `write`'),
      404: error('No asset with this id (or it was already removed)'),
    },
  },
  'get-metrics': {
    summary: 'Organization metrics',
    description:
      'Counters, blocked threats by asset type and by day for the organization of the key, optionally limited to a date range (inclusive, whole UTC days) or a brand (`brandSlug`, which needs the brands-metrics feature flag). `blockedByDay` is dense from the later of `startDate` and the first day with activity to the earlier of `endDate` and today.',
    tag: 'Metrics',
    responses: {
      200: { description: 'The metrics', body: BODY.metrics, example: METRICS_EXAMPLE },
      403: error('`brandSlug` without the brands-metrics feature flag, or the key lacks `read`'),
      404: error('Brand not found, or not one of the organization’s brands'),
    },
  },
  'get-public-metrics': {
    summary: 'Organization metrics (deprecated)',
    description:
      'Deprecated in favour of `GET /organization/metrics`. The same computation for the organization named in the body, with the legacy counters inside `metrics`. An organization key may read only its own organization; a user key any organization it is an active member of.',
    tag: 'Metrics',
    requestExample: { organizationSlug: 'acme', startDate: '2026-03-01', endDate: '2026-03-31' },
    responses: {
      200: {
        description: 'The metrics with the legacy fields',
        body: BODY.legacyMetrics,
        headers: {
          Deprecation: 'When the endpoint was deprecated (RFC 9745), e.g. `@1767225600`',
          Link: 'The successor: `</v2/organization/metrics>; rel="successor-version"`',
        },
      },
      403: error('You do not have permission to access metrics for this organization'),
      404: error('Brand not found, or not one of the organization’s brands'),
    },
  },
  'check-asset': {
    summary: 'Check content',
    description:
      'Says whether a piece of content (a URL, domain, address, handle …) is allowed, blocked or unknown, with every consulted source. Any valid key, organization or user. Unparseable content is 200 UNKNOWN with `code: parse-error`.',
    tag: 'Asset check',
    requestExample: { content: 'https://acme-airdrop.xyz/claim' },
    responses: {
      200: {
        description: 'The verdict',
        body: BODY.checkResult,
        example: CHECK_EXAMPLE,
      },
    },
  },
  'get-changelog': {
    summary: 'Verdict changes since a version',
    description:
      "The changes of the service's verdicts after `since` (optional: without it, from the oldest change kept; a body with only `type` is valid), oldest first, each with the verdict after it (`UNKNOWN` when the entry left the lists). Changes are handed out a few seconds after they happen, once no earlier change can still commit. Page with `next_page` until it is null (a page reads a bounded part of the log, so it may hold fewer than `per_page` changes, or none, while more follow), then keep `version` and send it as `since` next time; a container busy with changelog reads answers 429 with `Retry-After`. `since` older than the 7-day retention answers 410: re-sync from `POST /asset/list`. Any valid key.",
    tag: 'Asset check',
    requestExample: { type: 'URL' },
    responses: {
      200: {
        description: 'The changes, and the version to keep',
        body: BODY.changelog,
        example: {
          changes: [
            {
              content: 'acme-airdrop.xyz',
              type: 'URL',
              status: 'BLOCKED',
              watchStatus: 'DISABLED',
              changedAt: '2026-11-21T10:00:01.000Z',
              version: '1795255201000-9a0b1c2d3e4f5061-000000000001',
            },
          ],
          next_page: null,
          version: '1795255290000',
        },
      },
      410: error('since is older than the retention window of the changelog'),
    },
  },
  'list-verdicts': {
    summary: 'Export the service verdicts',
    description:
      "The service's own verdicts of one `type` (not the external lists) whose last change, on a UTC day from `startDate` to `endDate` (inclusive; default yesterday and today), left them in `status` (`ALLOWED`, `BLOCKED` — the default — or `UNKNOWN`: the entry left the lists, so a removal is listed with its new status in the window of its change). Oldest change first; `updatedAt` is the time of the entry's last change and `version` the changelog version of that change; `watchStatus` is the entry's watch flag. `content` is the canonical check key, as in the changelog. Page with `next_page` until it is null (`null` or no `next_page` asks for the first page): a page may hold fewer than `per_page` (1–10,000, default 100) assets while more exist, when its reads or its 5 MB size bound are spent. To keep a full copy, read `GET /asset/blocklist/version` first, page every type and status from an early `startDate`, then follow `POST /asset/changelog` from that version. Any valid key.",
    tag: 'Asset check',
    requestExample: { type: 'URL', status: 'BLOCKED', per_page: 500, next_page: null },
    responses: {
      200: {
        description: 'One page of verdicts',
        body: BODY.verdictList,
        example: {
          assets: [
            {
              content: 'acme-airdrop.xyz',
              type: 'URL',
              status: 'BLOCKED',
              watchStatus: 'DISABLED',
              updatedAt: '2026-11-21T10:00:01.000Z',
              version: '1795255201000-9a0b1c2d3e4f5061-000000000001',
            },
          ],
          next_page: null,
        },
      },
    },
  },
  'get-openapi': {
    summary: 'This API description',
    description: 'The OpenAPI 3.1 description of the API, generated from the schemas the handlers validate with.',
    tag: 'Description and pages',
    responses: { 200: { description: 'The OpenAPI document', body: BODY.openApiDocument } },
  },
  'get-docs-page': {
    summary: 'API reference page',
    description: 'An interactive reference of this API, rendered in the browser from `GET /openapi.json`.',
    tag: 'Description and pages',
    responses: { 200: { description: 'The page', mediaType: 'text/html' } },
  },
  'get-dashboard-page': {
    summary: 'Metrics dashboard page',
    description:
      'Charts of the organization metrics: paste an organization API key (kept in the tab’s session storage, never in a URL or a cookie), pick a date range and a brand; the page calls `GET /organization/metrics` of the same origin.',
    tag: 'Description and pages',
    responses: { 200: { description: 'The page', mediaType: 'text/html' } },
  },
  'get-static-file': {
    summary: 'A script or style of the pages',
    description: 'The scripts and styles the pages load, the rendering and chart libraries included.',
    tag: 'Description and pages',
    responses: {
      200: { description: 'The file (JavaScript or CSS)', mediaType: 'text/javascript' },
      404: error('No such file'),
    },
  },
};
