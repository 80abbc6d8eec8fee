import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { memoryArtifactStore } from '../../shared/db/blocklist-artifact-store.ts';
import { fileSigningKeys, publicKeysOf } from '../../shared/db/blocklist-signing-keys.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { blocklist } from '../../shared/domain/blocklist/blocklist.ts';
import { manifestIssuer, sha256Hex } from '../../shared/domain/blocklist/manifest.ts';
import type { JwkSet } from '../../shared/domain/blocklist/signing-keys.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import * as runtime from '../../shared/runtime.ts';
import { apiEvent, call, context } from '../fixtures/api-event.ts';
import { ACME_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('blocklist-manifest');
// After the table: a function module builds its production dependencies when it loads.
const { createHandler: createVersionHandler } = await import('../../functions/check/blocklist-version.ts');
const { createHandler: createArtifactHandler } = await import('../../functions/blocklist/artifact.ts');
const { createHandler: createKeysHandler } = await import('../../functions/blocklist/keys.ts');

const keyFile = join(mkdtempSync(join(tmpdir(), 'blocklist-keys-')), 'signing-keys.json');
const signingKeys = fileSigningKeys(keyFile);
const artifacts = memoryArtifactStore();
const verdicts = blocklist({ suffixes, log: verdictFeed(table.db, table.tableName), artifacts, pollMs: 0 });
const issue = manifestIssuer({ keys: () => signingKeys.load() });
const service = { ...verdicts, version: () => verdicts.version(issue) };
const version = createVersionHandler({ keys: runtime.keys(), blocklist: service, cdnUrl: undefined });
const artifact = createArtifactHandler({ artifacts });
const keys = createKeysHandler({ keys: publicKeysOf(signingKeys) });

type Ref = { token: string; bytes: number };
type Answer = { algoVersion: number; version: string; snapshot: Ref; recent: Ref; lists: Ref; manifest: string };

const readVersion = async () =>
  (await call(version, apiEvent({ method: 'GET', path: '/v2/asset/blocklist/version', apiKey: ACME_KEY })))
    .body as Answer;
const served = async (path: string, handler: typeof artifact, pathParameters?: Record<string, string>) =>
  (await handler(apiEvent({ path, apiKey: null, ...(pathParameters ? { pathParameters } : {}) }), context)) as Exclude<
    APIGatewayProxyResultV2,
    string
  > & { headers: Record<string, string>; body: string };

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
  await applyActivity(suffixes, runtime.activity(), {
    organization: 'acme',
    kind: 'threat',
    id: 'm-1',
    content: 'manifest-drainer.xyz',
    assetType: 'URL',
    status: 'BLOCKED',
    watchlisted: false,
    brands: [],
    createdAt: '2026-11-01T10:00:00Z',
    updatedAt: new Date().toISOString(),
  } as never);
});

describe('the signed manifest of GET /asset/blocklist/version', () => {
  it('is an EdDSA JWS, by a key GET /asset/blocklist/keys lists, over the SHA-256 and size of every artifact as served', async () => {
    const answer = await readVersion();
    const jwks = JSON.parse((await served('/v2/asset/blocklist/keys', keys)).body) as JwkSet;
    const header = decodeProtectedHeader(answer.manifest);
    const key = jwks.keys.find((candidate) => candidate.kid === header.kid);
    const { payload } = await compactVerify(answer.manifest, await importJWK(key ?? {}, 'EdDSA'));
    const manifest = JSON.parse(new TextDecoder().decode(payload));
    const bytesOf = async ({ token }: Ref) =>
      Buffer.from((await served(`/v2/asset/blocklist/artifacts/${token}`, artifact, { token })).body, 'base64');
    const [snapshot, recent, lists] = [
      await bytesOf(answer.snapshot),
      await bytesOf(answer.recent),
      await bytesOf(answer.lists),
    ];

    expect(header).toEqual({ alg: 'EdDSA', kid: expect.any(String) });
    expect(manifest).toEqual({
      algoVersion: answer.algoVersion,
      version: answer.version,
      issuedAt: expect.any(String),
      expiresAt: expect.any(String),
      artifacts: [
        { token: answer.snapshot.token, sha256: sha256Hex(snapshot), bytes: snapshot.length },
        { token: answer.recent.token, sha256: sha256Hex(recent), bytes: recent.length },
        { token: answer.lists.token, sha256: sha256Hex(lists), bytes: lists.length },
      ],
    });
    expect(Date.parse(manifest.expiresAt) - Date.parse(manifest.issuedAt)).toBe(24 * 3_600_000);
  });

  it('serves the artifacts as application/octet-stream without Content-Encoding', async () => {
    const { snapshot } = await readVersion();

    const response = await served(`/v2/asset/blocklist/artifacts/${snapshot.token}`, artifact, {
      token: snapshot.token,
    });

    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(Object.keys(response.headers).map((name) => name.toLowerCase())).not.toContain('content-encoding');
  });
});

describe('GET /asset/blocklist/keys', () => {
  it('answers the public JWK Set without a key, cacheable, and never a private key', async () => {
    const response = await served('/v2/asset/blocklist/keys', keys);

    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'application/jwk-set+json',
      'cache-control': 'public, max-age=300',
    });
    expect(JSON.parse(response.body)).toEqual({
      keys: [{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: expect.any(String), use: 'sig' }],
    });
  });

  it('keeps the private key in a file readable by its owner only, created on first use, and in no answer', async () => {
    const answer = JSON.stringify(await readVersion());
    const listed = (await served('/v2/asset/blocklist/keys', keys)).body;
    const stored = JSON.parse(readFileSync(keyFile, 'utf8')) as { keys: { privateJwk: { d: string } }[] };
    const privateKey = stored.keys[0]?.privateJwk.d as string;

    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(privateKey).toMatch(/^[\w-]{43}$/);
    expect(answer).not.toContain(privateKey);
    expect(listed).not.toContain(privateKey);
  });
});
