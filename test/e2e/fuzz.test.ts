import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { BASE_PATH, ROUTES, type Route } from '../../infra/routes.ts';
import { inProcessScansSettled } from '../../shared/db/scan-queue.ts';
import { openApiDocument } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';

const RUNS = 2000;
/** A snapshot of the table is compared every this many requests (and after every accepted write). */
const WINDOW = 25;

const table = await createTestTable('fuzz');
const server = createGateway();
let port = 0;

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const KEYS = [
  'demo-acme-0123456789abcdef',
  'demo-acme-readonly-0123456789',
  'demo-globex-0123456789abcdef',
  'demo-user-u1-0123456789abcdef',
];

/** Text a hostile client sends: control characters, lone surrogates, escapes, numbers at the edges, and lengths far past every bound. */
const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '1',
    '2',
    '-1',
    '1e3',
    '9007199254740993',
    '99999999999999999999',
    '%',
    '%E0%A4%A',
    '%00',
    '../..',
    'x\ud800',
    'x\udbff',
    '\u0000',
    '\u007f',
    'acme',
    'acme-wallet',
    'globex-pay',
    'URL',
    'TWITTER',
    '2026-01-01',
    '2026-13-45',
    'null',
  ),
  fc.integer({ min: 60, max: 1200 }).map((n) => 'a'.repeat(n)),
);

/** Percent-encodes what `encodeURIComponent` refuses (lone surrogates) as their replacement character. */
const encode = (text: string) => encodeURIComponent(text.replace(/\p{Cs}/gu, '\ufffd'));

const pathSegment = fc.oneof(
  hostileText.map(encode),
  fc.constantFrom('%', '%E0%A4%A', '%zz', '%C0%AF', '..', '1', '2', '3', '-1', '007'),
);

const queryNames = ['type', 'groupId', 'query', 'per_page', 'next_page', 'brandSlug', 'startDate', 'endDate', 'x'];
const queryString = fc
  .array(fc.tuple(fc.constantFrom(...queryNames), fc.oneof(hostileText.map(encode), fc.constant('%E0%A4%A'))), {
    maxLength: 4,
  })
  .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&'));

const fieldNames = [
  'name',
  'description',
  'groupId',
  'assetId',
  'content',
  'type',
  'organizationSlug',
  'brandSlug',
  'startDate',
  'endDate',
];
const hostileValue = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileText, { maxLength: 3 }),
);
const hostileObject = fc.dictionary(fc.constantFrom(...fieldNames), hostileValue, { maxKeys: 4 });
const body = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('not json', '[]', '[1]', '"text"', '42', 'null', '{', '{"name":'),
  fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
  hostileObject.map((object) => JSON.stringify(object)),
  fc.array(hostileObject, { maxLength: 3 }).map((assets) => JSON.stringify({ assets })),
  fc.constant(JSON.stringify({ name: 'x'.repeat(70 * 1024) })),
);

const apiKey = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KEYS) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, 'x'.repeat(300), 'unknown-key', '') },
);

type Sent = { route: Route; method: string; path: string; body?: string; key?: string };

const requestFor = (route: Route): fc.Arbitrary<Sent> =>
  fc
    .record({
      segments: fc.array(pathSegment, { minLength: 2, maxLength: 2 }),
      query: queryString,
      body,
      key: apiKey,
    })
    .map(({ segments, query, body, key }) => {
      let next = 0;
      const path = route.path.replace(/\{\w+\}/g, () => segments[next++] as string);
      return { route, method: route.method, path: `${BASE_PATH}${path}${query ? `?${query}` : ''}`, body, key };
    });

const send = ({ method, path, body, key }: Sent): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = key === undefined ? {} : { 'x-api-key': key };
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
};

/** The documented error body: flat code and message, optional issues, the wrapped copy, a request id. */
const expectErrorBody = (status: number, text: string) => {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const code = CODES[status];
  expect(code, `status ${status}`).toBeDefined();
  expect(parsed).toEqual({
    code,
    message: expect.any(String),
    ...(parsed.issues === undefined
      ? {}
      : { issues: expect.arrayContaining([expect.objectContaining({ message: expect.any(String) })]) }),
    error: { code, message: parsed.message },
    requestId: expect.any(String),
  });
};

/**
 * The TAXII routes' error body, a TAXII error resource (`http_status` a string, as TAXII 2.1 has
 * it); a request the gateway refuses before any route (no route, a malformed path) is answered in
 * the service's own shape.
 */
const expectTaxiiErrorBody = (status: number, text: string) => {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  if ('code' in parsed) return expectErrorBody(status, text);
  expect(parsed).toEqual({
    title: expect.any(String),
    ...(parsed.description === undefined ? {} : { description: expect.any(String) }),
    http_status: String(status),
  });
};

/** A page route may document an error status as an HTML page (the public report page's 404). */
const documentedAsPage = (route: Route, status: number) =>
  openApiDocument.paths[route.path]?.[route.method.toLowerCase()]?.responses[String(status)]?.content?.['text/html'] !==
  undefined;

const readsOnly = (route: Route) => route.method === 'GET' || route.access !== 'write';

describe('hostile requests through the local gateway', () => {
  it('never answer 5xx, always carry the documented error body, and write nothing when rejected', async () => {
    let baseline = await tableSnapshot(table);
    let sinceCheck = 0;
    const tally = { rejected: 0, accepted: 0, byRoute: new Map<string, number>() };

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES).chain(requestFor), async (sent) => {
        const { status, text } = await send(sent);

        expect(status, `${sent.method} ${sent.path}`).toBeLessThan(500);
        tally.byRoute.set(sent.route.name, (tally.byRoute.get(sent.route.name) ?? 0) + 1);
        if (status >= 400) {
          tally.rejected++;
          // A path that reaches no route (an empty id) is the gateway's JSON 404 even on a page route.
          if (!(documentedAsPage(sent.route, status) && text.startsWith('<!doctype html>'))) {
            if (sent.route.area === 'taxii') expectTaxiiErrorBody(status, text);
            else expectErrorBody(status, text);
          }
        } else {
          tally.accepted++;
        }
        sinceCheck++;
        const accepted = status < 400 && !readsOnly(sent.route);
        // Scans an accepted request started finish after its answer: their writes are the request's.
        await inProcessScansSettled();
        if (sinceCheck >= WINDOW && !accepted) {
          expect(await tableSnapshot(table), `a rejected request wrote (window ending ${sent.path})`).toEqual(baseline);
          sinceCheck = 0;
        }
        if (accepted) {
          baseline = await tableSnapshot(table);
          sinceCheck = 0;
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );

    expect(await tableSnapshot(table)).toEqual(baseline);
    expect([...tally.byRoute.keys()].sort()).toEqual(ROUTES.map((route) => route.name).sort());
    expect(tally.rejected).toBeGreaterThan(RUNS / 2);
  });
});
