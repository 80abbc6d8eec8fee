import { createHash } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import * as v from 'valibot';
import { NotAcceptableError } from '../errors.ts';
import type { ApiResult } from './api-event.ts';
import { presentedKey } from './api-key-auth.ts';
import type { JsonResult } from './json.ts';
import { headerOf } from './request.ts';

export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';

/** A TAXII answer: its media type on every one. */
export const taxiiJson = (statusCode: number, body: unknown, headers: Record<string, string> = {}): JsonResult => ({
  statusCode,
  headers: { 'content-type': TAXII_MEDIA_TYPE, ...headers },
  body: JSON.stringify(body),
});

/** Whether an `Accept` header allows TAXII 2.1 (absent, `*\/*`, `application/*`, `application/taxii+json` with no or this version). */
export const acceptsTaxii = (accept: string | undefined): boolean => {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const quality = params.find((param) => param.startsWith('q='));
    if (quality !== undefined && Number(quality.slice(2)) === 0) return false;
    const version = params.find((param) => param.startsWith('version='));
    if (type === '*/*' || type === 'application/*') return true;
    return type === 'application/taxii+json' && (version === undefined || version === 'version=2.1');
  });
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/** An error answer of this service as a TAXII error resource (`{title, description?, http_status}`), headers kept. */
const asErrorResource = (response: JsonResult): JsonResult => {
  const parsed = JSON.parse(response.body) as { message?: unknown };
  const status = response.statusCode;
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {})
      .filter(([name]) => name.toLowerCase() !== 'content-type')
      .map(([name, value]) => [name, String(value)]),
  );
  return taxiiJson(
    status,
    {
      title: TITLES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error'),
      ...(typeof parsed.message === 'string' ? { description: parsed.message } : {}),
      http_status: String(status),
    },
    { ...headers, ...(status === 401 ? { 'WWW-Authenticate': 'Basic realm="TAXII"' } : {}) },
  );
};

const reshape = (response: ApiResult | null | undefined): ApiResult | null | undefined => {
  if (typeof response !== 'object' || response === null || typeof response.body !== 'string') return response;
  const status = response.statusCode ?? 200;
  if (status < 400) return { ...response, headers: { ...response.headers, 'content-type': TAXII_MEDIA_TYPE } };
  return asErrorResource(response as JsonResult);
};

/**
 * The answers of a TAXII route: an `Accept` that allows neither TAXII 2.1 nor `application/taxii+json`
 * is 406; every answer has TAXII's media type; every error is a TAXII error resource, and a 401 asks
 * for Basic credentials (`WWW-Authenticate`).
 */
export const taxiiAnswers = (): MiddlewareObj<{ headers?: Record<string, string | undefined> }, ApiResult> => ({
  before: (request) => {
    if (!acceptsTaxii(headerOf(request.event.headers, 'accept'))) {
      throw new NotAcceptableError(`Accept must allow ${TAXII_MEDIA_TYPE}`);
    }
  },
  after: (request) => {
    request.response = reshape(request.response) as ApiResult;
  },
  onError: (request) => {
    if (request.response !== undefined && request.response !== null)
      request.response = reshape(request.response) as ApiResult;
  },
});

/** What a `next` is bound to besides organization and collection: the digest of the key that asked. */
export const keyDigestOf = (headers: Record<string, string | undefined> | undefined): string =>
  createHash('sha256')
    .update(presentedKey(headers, { basic: true }) ?? '')
    .digest('base64url');

const commaList = v.pipe(
  v.string(),
  v.maxLength(2000),
  v.transform((text) => text.split(',').map((one) => one.trim())),
);
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/;

/** The query of `objects/` and `manifest/`; API Gateway joins a repeated parameter with commas. */
export const objectsQuery = v.optional(
  v.object({
    added_after: v.optional(
      v.pipe(v.string(), v.regex(TIMESTAMP, 'added_after must be a timestamp such as 2026-01-01T00:00:00.000000Z')),
    ),
    limit: v.optional(
      v.pipe(
        v.string(),
        v.digits('limit must be a whole number'),
        v.toNumber(),
        v.minValue(1, 'limit must be at least 1'),
      ),
    ),
    next: v.optional(v.pipe(v.string(), v.maxLength(2000))),
    'match[type]': v.optional(commaList),
    'match[id]': v.optional(commaList),
    'match[version]': v.optional(v.pipe(v.string(), v.maxLength(2000))),
    'match[spec_version]': v.optional(commaList),
  }),
  {},
);

/** TAXII lets a server lower `limit`; this one serves at most 1,000 objects a page, 100 when none is asked. */
export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 100;

export const objectQueryOf = (query: v.InferOutput<typeof objectsQuery>) => ({
  ...(query.added_after === undefined ? {} : { addedAfter: query.added_after }),
  limit: Math.min(query.limit ?? DEFAULT_PAGE, MAX_PAGE),
  ...(query.next === undefined ? {} : { next: query.next }),
  ...(query['match[type]'] === undefined ? {} : { types: query['match[type]'] }),
  ...(query['match[id]'] === undefined ? {} : { ids: query['match[id]'] }),
  version: query['match[version]'] ?? 'last',
  ...(query['match[spec_version]'] === undefined ? {} : { specVersions: query['match[spec_version]'] }),
});

/** The options every TAXII route shares: organization keys (X-API-KEY or Basic), TAXII answers. */
export const taxiiRoute = <S extends 'read' | 'write'>(scope: S) => ({
  caller: 'organization' as const,
  scope,
  rateClass: scope,
  basicAuth: true,
  answers: taxiiAnswers() as MiddlewareObj,
});

const COLLECTION_ID = 'collectionId must be a collection id (a UUID)';
const OBJECT_ID = 'objectId must be a STIX id';
const collectionId = v.pipe(v.string(COLLECTION_ID), v.uuid(COLLECTION_ID));
export const collectionPath = v.object({ collectionId }, COLLECTION_ID);
export const objectPath = v.object(
  { collectionId, objectId: v.pipe(v.string(OBJECT_ID), v.regex(/^[a-z0-9-]+--[0-9a-f-]{36}$/, OBJECT_ID)) },
  OBJECT_ID,
);

/** As many objects as `/report/create` takes assets: they become the proposals of one report. */
const MAX_OBJECTS = 100;
export const envelopeBody = v.object(
  {
    objects: v.pipe(
      v.array(v.unknown(), 'objects must be an array of STIX objects'),
      v.minLength(1, 'objects must hold at least one object'),
      v.maxLength(MAX_OBJECTS, `At most ${MAX_OBJECTS} objects per request`),
    ),
  },
  'The body must be an envelope {"objects": [...]}',
);
