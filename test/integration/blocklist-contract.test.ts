import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { memoryArtifactStore } from '../../shared/db/blocklist-artifact-store.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { addAssets } from '../../shared/domain/allowlist/assets.ts';
import { decodeArtifact } from '../../shared/domain/blocklist/artifact.ts';
import { blocklist } from '../../shared/domain/blocklist/blocklist.ts';
import { fullHash, prefixHex, prefixOf } from '../../shared/domain/blocklist/expressions.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import * as runtime from '../../shared/runtime.ts';
import { apiEvent, call, context, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('blocklist-contract');
// After the table: a function module builds its production dependencies when it loads.
const { createHandler: createVersionHandler } = await import('../../functions/check/blocklist-version.ts');
const { createHandler: createConfirmHandler } = await import('../../functions/blocklist/confirm.ts');
const { createHandler: createArtifactHandler } = await import('../../functions/blocklist/artifact.ts');

const artifacts = memoryArtifactStore();
const service = blocklist({ suffixes, log: verdictFeed(table.db, table.tableName), artifacts, pollMs: 0 });
const version = createVersionHandler({ keys: runtime.keys(), blocklist: service, cdnUrl: undefined });
const onCdn = createVersionHandler({ keys: runtime.keys(), blocklist: service, cdnUrl: 'https://d1.cloudfront.net' });
const confirm = createConfirmHandler({ keys: runtime.keys(), blocklist: service });
const artifact = createArtifactHandler({ artifacts });

const block = (id: string, content: string, status = 'BLOCKED') =>
  applyActivity(suffixes, runtime.activity(), {
    organization: 'acme',
    kind: 'threat',
    id,
    content,
    assetType: 'URL',
    status,
    watchlisted: false,
    brands: [],
    createdAt: '2026-11-01T10:00:00Z',
    updatedAt: new Date().toISOString(),
  } as never);

const hexOf = (expression: string) => fullHash(expression);
const prefixOfExpression = (expression: string) => prefixHex(prefixOf(fullHash(expression)));

type Ref = { token: string; count: number; url: string; bytes: number };
type Version = {
  algoVersion: number;
  version: string;
  updatedAt: string;
  entries: number;
  snapshot: Ref;
  recent: Ref;
  lists: Ref;
};

const readVersion = async (path = '/v2/asset/blocklist/version', handler = version) =>
  call(handler, apiEvent({ method: 'GET', path, apiKey: ACME_KEY, headers: { host: 'api.test:3000' } }));
const askConfirm = (body: unknown) =>
  call(confirm, apiEvent({ method: 'POST', path: '/v2/asset/blocklist/confirm', apiKey: ACME_KEY, body }));
const fetchArtifact = async (token: string, headers: Record<string, string> = {}) =>
  (await artifact(
    apiEvent({ path: `/v2/asset/blocklist/artifacts/${token}`, apiKey: null, headers, pathParameters: { token } }),
    context,
  )) as Exclude<APIGatewayProxyResultV2, string>;

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
  await block('c-1', 'contract-drainer.xyz');
  await block('c-2', 'https://contract-pages.org/claim');
});

describe('GET /asset/blocklist/version', () => {
  it('answers the verdict version with the snapshot and recent artifacts at absolute URLs under the base it was called on', async () => {
    const response = await readVersion('/api/v2/asset/blocklist/version');

    const body = response.body as Version;
    expect(response.statusCode).toBe(200);
    expect(body).toEqual({
      algoVersion: 1,
      version: expect.any(String),
      updatedAt: expect.any(String),
      entries: 2,
      snapshot: {
        token: expect.stringMatching(/^[0-9a-f]{32}$/),
        count: 3,
        url: `http://api.test:3000/api/v2/asset/blocklist/artifacts/${body.snapshot.token}`,
        bytes: expect.any(Number),
      },
      recent: {
        token: expect.stringMatching(/^[0-9a-f]{32}$/),
        count: 0,
        url: `http://api.test:3000/api/v2/asset/blocklist/artifacts/${body.recent.token}`,
        bytes: expect.any(Number),
      },
      lists: {
        token: expect.stringMatching(/^[0-9a-f]{32}$/),
        count: 0,
        url: `http://api.test:3000/api/v2/asset/blocklist/artifacts/${body.lists.token}`,
        bytes: expect.any(Number),
      },
    });
  });

  it('names the CDN in the artifact URLs when the stage has one', async () => {
    const body = (await readVersion(undefined, onCdn)).body as Version;

    expect(body.snapshot.url).toBe(`https://d1.cloudfront.net/blocklist/artifacts/${body.snapshot.token}`);
  });

  it('serves a snapshot holding the prefix of every BLOCKED expression, and a recent feed that moves with each change', async () => {
    const before = (await readVersion()).body as Version;
    await block('c-3', 'contract-late.xyz');
    const added = (await readVersion()).body as Version;
    await block('c-3', 'contract-late.xyz', 'REJECTED');
    const removed = (await readVersion()).body as Version;

    const snapshot = decodeArtifact(Buffer.from((await fetchArtifact(before.snapshot.token)).body as string, 'base64'));
    const recentAfterAdd = decodeArtifact(
      Buffer.from((await fetchArtifact(added.recent.token)).body as string, 'base64'),
    );
    const late = prefixOf(fullHash('contract-late.xyz/'));
    expect(snapshot.kind === 'snapshot' && [...snapshot.prefixes]).toEqual(
      ['contract-drainer.xyz/', 'contract-pages.org/claim', 'contract-pages.org/claim/']
        .map((expression) => prefixOf(fullHash(expression)))
        .sort((a, b) => a - b),
    );
    expect(recentAfterAdd).toEqual({
      kind: 'recent',
      algoVersion: 1,
      added: Uint32Array.of(late),
      removed: new Uint32Array(),
    });
    expect([added.snapshot.token, removed.snapshot.token]).toEqual([before.snapshot.token, before.snapshot.token]);
    expect(new Set([before.recent.token, added.recent.token, removed.recent.token]).size).toBe(2);
    expect([before.recent.count, added.recent.count, removed.recent.count]).toEqual([0, 1, 0]);
    expect(removed.recent.token).toBe(before.recent.token);
  });
});

describe('GET /asset/blocklist/artifacts/{token}', () => {
  it('answers the artifact as immutable with its token as ETag, and 304 for that ETag', async () => {
    const { snapshot } = (await readVersion()).body as Version;

    const full = await fetchArtifact(snapshot.token);
    const again = await fetchArtifact(snapshot.token, { 'if-none-match': `"${snapshot.token}"` });

    expect([full.statusCode, again.statusCode]).toEqual([200, 304]);
    expect(full.headers).toEqual({
      etag: `"${snapshot.token}"`,
      'cache-control': 'public, max-age=31536000, immutable',
      'content-type': 'application/octet-stream',
    });
    expect(Buffer.from(full.body as string, 'base64').length).toBe(snapshot.bytes);
  });

  it('answers 404 NOT_FOUND for a token it does not hold and for one that is no token', async () => {
    const unknown = await fetchArtifact('0'.repeat(32));
    const malformed = await fetchArtifact('..%2Fcurrent.json');

    expect([unknown.statusCode, malformed.statusCode]).toEqual([404, 404]);
    expect(JSON.parse(unknown.body as string)).toMatchObject({
      code: 'NOT_FOUND',
      message: 'No blocklist artifact has this token',
    });
  });
});

describe('POST /asset/blocklist/confirm', () => {
  it('answers the full hashes under each prefix, and an empty group for a prefix nothing current has', async () => {
    const drainer = prefixOfExpression('contract-drainer.xyz/');
    const claim = prefixOfExpression('contract-pages.org/claim/');
    const nothing = drainer === '00000000' ? '00000001' : '00000000';

    const response = await askConfirm({ algoVersion: 1, prefixes: [drainer, claim, nothing] });

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({
      algoVersion: 1,
      matches: {
        [drainer]: [hexOf('contract-drainer.xyz/')],
        [claim]: [hexOf('contract-pages.org/claim/')],
        [nothing]: [],
      },
      allowed: {},
      verdicts: {
        [hexOf('contract-drainer.xyz/')]: { service: 'BLOCKED' },
        [hexOf('contract-pages.org/claim/')]: { service: 'BLOCKED' },
      },
    });
  });

  it('lists under a blocked prefix the full hashes of the ALLOWED entries that mask it', async () => {
    await addAssets(suffixes, runtime.assets(), runtime.groups(), 'globex', [
      { content: 'https://good.contract-drainer.xyz', type: 'URL' },
      { content: 'https://contract-pages.org/claim/help', type: 'URL' },
    ]);
    const drainer = prefixOfExpression('contract-drainer.xyz/');
    const claim = prefixOfExpression('contract-pages.org/claim/');

    const response = await askConfirm({ algoVersion: 1, prefixes: [drainer, claim] });

    expect(response.statusCode).toBe(200);
    expect((response.body as { allowed: object }).allowed).toEqual({
      [drainer]: [hexOf('good.contract-drainer.xyz/')],
      [claim]: [hexOf('contract-pages.org/claim/help'), hexOf('contract-pages.org/claim/help/')],
    });
  });

  it('returns 409 CONFLICT with the current algoVersion for another one', async () => {
    const response = await askConfirm({ algoVersion: 2, prefixes: ['00000000'] });

    expect(response.statusCode).toBe(409);
    expect(response.body).toEqual(
      errorBody('CONFLICT', 'algoVersion 1 is current; re-sync', { data: { algoVersion: 1 } }),
    );
  });

  it.each([
    ['an upper-case prefix', { algoVersion: 1, prefixes: ['ABCDEF01'] }, 'Each prefix must be 8 lower-case hex digits'],
    ['a 7-digit prefix', { algoVersion: 1, prefixes: ['abcdef0'] }, 'Each prefix must be 8 lower-case hex digits'],
    ['a 9-digit prefix', { algoVersion: 1, prefixes: ['abcdef012'] }, 'Each prefix must be 8 lower-case hex digits'],
    ['a number for a prefix', { algoVersion: 1, prefixes: [12345678] }, 'Each prefix must be 8 lower-case hex digits'],
    ['no prefixes', { algoVersion: 1, prefixes: [] }, 'prefixes must be an array of 1 to 1000 prefixes'],
    [
      'a string for prefixes',
      { algoVersion: 1, prefixes: 'abcdef01' },
      'prefixes must be an array of 1 to 1000 prefixes',
    ],
    [
      '1,001 prefixes',
      { algoVersion: 1, prefixes: Array.from({ length: 1001 }, (_, i) => i.toString(16).padStart(8, '0')) },
      'prefixes must be an array of 1 to 1000 prefixes',
    ],
    ['a repeated prefix', { algoVersion: 1, prefixes: ['abcdef01', 'abcdef01'] }, 'prefixes must not repeat a prefix'],
    ['a string algoVersion', { algoVersion: '1', prefixes: ['abcdef01'] }, 'algoVersion must be a positive integer'],
    ['algoVersion 0', { algoVersion: 0, prefixes: ['abcdef01'] }, 'algoVersion must be a positive integer'],
    ['no algoVersion', { prefixes: ['abcdef01'] }, 'Request body must be an object with algoVersion and prefixes'],
    ['an array body', [], 'Request body must be a JSON object'],
  ])('returns 400 BAD_REQUEST for %s', async (_, body, message) => {
    const response = await askConfirm(body);

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST', message });
  });

  it('accepts 1,000 unique prefixes', async () => {
    const prefixes = Array.from({ length: 1000 }, (_, i) => (i * 4_000_037).toString(16).padStart(8, '0'));

    const response = await askConfirm({ algoVersion: 1, prefixes });

    expect(response.statusCode).toBe(200);
    expect(Object.keys((response.body as { matches: object }).matches)).toHaveLength(1000);
  });
});
