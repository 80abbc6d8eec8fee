import * as v from 'valibot';
import { jsonSchemaTwin } from '../../shared/schema-twin.ts';
import type { OperationDoc, ResponseDoc } from './operation-doc.ts';

const error = (description: string): ResponseDoc => ({ description, error: true });
const ANSWERS =
  "TAXII 2.1: answers are `application/taxii+json;version=2.1`; an `Accept` that allows neither it nor `application/taxii+json` is 406; errors are TAXII error resources `{title, description?, http_status}` (not this API's error body), and a 401 carries `WWW-Authenticate: Basic`. The key goes in `X-API-KEY` or as the password of HTTP Basic; the collections are the key's organization's only.";

/** TAXII's error resource, the body of every error of these routes. */
const errorBody = v.object({ title: v.string(), description: v.optional(v.string()), http_status: v.string() });
/** A STIX object: its common properties here, the rest per type (the STIX 2.1 specification). */
const stixObject = v.pipe(
  v.looseObject({ type: v.string(), spec_version: v.literal('2.1'), id: v.string() }),
  jsonSchemaTwin({ additionalProperties: true }),
);
const envelope = v.object({
  more: v.boolean(),
  next: v.optional(v.string()),
  objects: v.optional(v.array(stixObject)),
});
const collection = v.object({
  id: v.string(),
  title: v.picklist(['blocked', 'allowed', 'submissions']),
  description: v.string(),
  can_read: v.boolean(),
  can_write: v.boolean(),
  media_types: v.array(v.string()),
});
const outcome = v.object({ id: v.string(), version: v.string(), message: v.optional(v.string()) });
const status = v.object({
  id: v.string(),
  status: v.literal('complete'),
  request_timestamp: v.string(),
  total_count: v.number(),
  success_count: v.number(),
  successes: v.optional(v.array(outcome)),
  failure_count: v.number(),
  failures: v.optional(v.array(outcome)),
  pending_count: v.number(),
});
const DATE_ADDED = {
  'X-TAXII-Date-Added-First': 'The date_added of the first object of the page (microseconds)',
  'X-TAXII-Date-Added-Last': 'The date_added of the last object of the page: the next added_after',
};
const COLLECTION_EXAMPLE = {
  id: '7d3f2a10-4b6c-4e8f-9a1d-2c5e8f0b3a71',
  title: 'blocked',
  description: "Indicators (malicious-activity) of the organization's BLOCKED, APPROVED and AUTO_APPROVED threats.",
  can_read: true,
  can_write: false,
  media_types: ['application/stix+json;version=2.1'],
};
const INDICATOR_EXAMPLE = {
  type: 'indicator',
  spec_version: '2.1',
  id: 'indicator--0f4f6f8e-2b1a-5c3d-8e9f-1a2b3c4d5e6f',
  created_by_ref: 'identity--3c1d5f0a-8b2e-5d4c-9a7f-6e5d4c3b2a10',
  created: '2026-11-21T10:00:00.000Z',
  modified: '2026-11-21T10:00:00.000Z',
  name: 'acme-airdrop.xyz',
  indicator_types: ['malicious-activity'],
  pattern: "[domain-name:value = 'acme-airdrop.xyz']",
  pattern_type: 'stix',
  valid_from: '2026-11-21T10:00:00.000Z',
  object_marking_refs: ['marking-definition--613f2e26-407d-48c7-9eca-b8e91df99dc9'],
};
const NOT_OURS = error("No collection of the key's organization has this id (another organization's is 404 too)");
const discovery: OperationDoc = {
  summary: 'TAXII discovery',
  description: `${ANSWERS} Names the API root under the base the client called.`,
  tag: 'TAXII',
  errorBody,
  responses: {
    200: {
      description: 'The discovery resource',
      body: v.object({
        title: v.string(),
        description: v.string(),
        default: v.string(),
        api_roots: v.array(v.string()),
      }),
      example: {
        title: 'Asset Protection Service',
        description: '…',
        default: '/v2/taxii2/api/',
        api_roots: ['/v2/taxii2/api/'],
      },
    },
    406: error('`Accept` allows no TAXII 2.1 media type'),
  },
};
const objectsDoc = (summary: string, what: string, body: v.GenericSchema, example: unknown): OperationDoc => ({
  summary,
  description: `${ANSWERS} ${what} Sorted by date_added ascending (the time a version entered the collection, microseconds); \`added_after\`, \`limit\` (at most 1,000; default 100), \`next\` (sealed to the key, the collection and the filters: anything else is 400), \`match[type]\`, \`match[id]\`, \`match[version]\` (\`last\` by default, \`first\`, \`all\` or a \`modified\`), \`match[spec_version]\`. A page reads at most \`limit\` stored versions (and, for \`last\`, those objects), whatever the collection's size. The organization's identity opens the first page. The submissions collection holds nothing to read (404).`,
  tag: 'TAXII',
  errorBody,
  responses: {
    200: { description: 'One page', body, example, headers: DATE_ADDED },
    404: NOT_OURS,
    406: error('`Accept` allows no TAXII 2.1 media type'),
  },
});

/** The TAXII 2.1 server (SPEC-EXTENSIONS §12), by route name. */
export const TAXII_OPERATIONS: Record<string, OperationDoc> = {
  'taxii-discovery': discovery,
  'taxii-root-discovery': {
    ...discovery,
    summary: 'TAXII discovery at the host root',
    description: `${discovery.description} Served at \`/taxii2/\` on the host itself, outside the API base, where TAXII clients look first.`,
  },
  'taxii-api-root': {
    summary: 'TAXII API root',
    description: `${ANSWERS} The one API root: TAXII 2.1 and the largest body it takes.`,
    tag: 'TAXII',
    errorBody,
    responses: {
      200: {
        description: 'The API root resource',
        body: v.object({
          title: v.string(),
          description: v.string(),
          versions: v.array(v.string()),
          max_content_length: v.number(),
        }),
        example: {
          title: 'Asset Protection Service indicators',
          description: '…',
          versions: ['application/taxii+json;version=2.1'],
          max_content_length: 6291456,
        },
      },
    },
  },
  'taxii-list-collections': {
    summary: 'TAXII collections',
    description: `${ANSWERS} Exactly three per organization: \`blocked\` (indicators of its BLOCKED, APPROVED and AUTO_APPROVED threats), \`allowed\` (its allowlist, benign) and \`submissions\` (writable with a \`write\` key). Ids are random UUIDv4 given with the organization; an organization without them (created before TAXII) answers 404 until the operator creates it again.`,
    tag: 'TAXII',
    errorBody,
    responses: {
      200: {
        description: 'The collections',
        body: v.object({ collections: v.array(collection) }),
        example: { collections: [COLLECTION_EXAMPLE] },
      },
      404: error('The organization has no collection ids yet'),
    },
  },
  'taxii-get-collection': {
    summary: 'One TAXII collection',
    description: `${ANSWERS} One of the three collections of the key's organization.`,
    tag: 'TAXII',
    errorBody,
    responses: { 200: { description: 'The collection', body: collection, example: COLLECTION_EXAMPLE }, 404: NOT_OURS },
  },
  'taxii-get-objects': objectsDoc(
    'TAXII objects of a collection',
    "STIX 2.1 objects: the organization's identity and one indicator per entry (`created_by_ref` the identity, TLP:WHITE, pattern `[domain-name:value = …]`, `[url:value = …]`, `[email-addr:value = …]` or OpenCTI's `[cryptocurrency-wallet:value = …]`, with `'` and `\\` escaped). Ids are UUIDv5 of organization, collection, canonical content and generation; an entry that leaves gets a later revoked version, and one that comes back a new id.",
    envelope,
    { more: false, objects: [INDICATOR_EXAMPLE] },
  ),
  'taxii-add-objects': {
    summary: 'Add objects to the submissions collection',
    description: `${ANSWERS} An envelope \`{objects: [...]}\` of at most 100 objects, processed at once (202, status \`complete\`): every indicator with a supported pattern becomes a proposal of one new pending report of the organization, checked as \`POST /report/create\` checks; an indicator that fails is listed in \`failures\` with the reason and the rest are proposed. An object already accepted (same id and \`modified\`) is a success that writes nothing; when no object is new and valid, no report is written. The status is kept for \`GET …/status/{id}/\`. Posting to \`blocked\` or \`allowed\` is 403.`,
    tag: 'TAXII',
    errorBody,
    requestExample: { objects: [INDICATOR_EXAMPLE] },
    responses: {
      202: {
        description: 'The status resource',
        body: status,
        example: {
          id: '5b9e1c2d-3f4a-4b6c-8d7e-9f0a1b2c3d4e',
          status: 'complete',
          request_timestamp: '2026-11-21T10:00:00.000Z',
          total_count: 1,
          success_count: 1,
          successes: [{ id: INDICATOR_EXAMPLE.id, version: INDICATOR_EXAMPLE.modified }],
          failure_count: 0,
          pending_count: 0,
        },
      },
      404: NOT_OURS,
    },
  },
  'taxii-get-manifest': objectsDoc(
    'TAXII manifest of a collection',
    'The objects of the same page as `objects/` would answer, as `{id, date_added, version, media_type}`.',
    v.object({
      more: v.boolean(),
      next: v.optional(v.string()),
      objects: v.optional(
        v.array(v.object({ id: v.string(), date_added: v.string(), version: v.string(), media_type: v.string() })),
      ),
    }),
    {
      more: false,
      objects: [
        {
          id: INDICATOR_EXAMPLE.id,
          date_added: '2026-11-21T10:00:00.123456Z',
          version: INDICATOR_EXAMPLE.modified,
          media_type: 'application/stix+json;version=2.1',
        },
      ],
    },
  ),
  'taxii-get-object': {
    summary: 'One TAXII object',
    description: `${ANSWERS} The versions of one object that \`match[version]\` selects (default \`last\`), in an envelope.`,
    tag: 'TAXII',
    errorBody,
    responses: {
      200: {
        description: 'The object',
        body: envelope,
        example: { more: false, objects: [INDICATOR_EXAMPLE] },
        headers: DATE_ADDED,
      },
      404: error('No such collection of the organization, or no such object in it'),
    },
  },
  'taxii-delete-object': {
    summary: 'Delete a TAXII object (refused)',
    description: `${ANSWERS} The service maintains the collections from the organization's threats and allowlist: always 403 for a collection of the organization.`,
    tag: 'TAXII',
    errorBody,
    responses: {
      200: {
        description: 'Never answered: every delete is refused (403)',
        mediaType: 'application/taxii+json;version=2.1',
      },
      403: error('Objects are maintained by the service'),
      404: NOT_OURS,
    },
  },
  'taxii-get-versions': {
    summary: 'Versions of a TAXII object',
    description: `${ANSWERS} The \`modified\` of every version, oldest first: the version it was added with, and its revocation if it left.`,
    tag: 'TAXII',
    errorBody,
    responses: {
      200: {
        description: 'The versions',
        body: v.object({ more: v.boolean(), versions: v.array(v.string()) }),
        example: { more: false, versions: [INDICATOR_EXAMPLE.modified] },
        headers: DATE_ADDED,
      },
      404: error('No such collection of the organization, or no such object in it'),
    },
  },
  'taxii-get-status': {
    summary: 'TAXII status of a submission',
    description: `${ANSWERS} The status resource an earlier add answered, again.`,
    tag: 'TAXII',
    errorBody,
    responses: {
      200: { description: 'The status', body: status },
      404: error('No status of the organization has this id'),
    },
  },
};
