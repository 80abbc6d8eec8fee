import { readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSampleEvent } from '../../infra/local/sample-event.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { fileSnapshotStore } from '../../shared/db/list-snapshot-store.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { addAssets, removeAsset } from '../../shared/domain/allowlist/assets.ts';
import { createChecker } from '../../shared/domain/check/engine.ts';
import { snapshotOf } from '../../shared/domain/check/lists.ts';
import { applyActivity, parseActivityChange } from '../../shared/domain/lifecycle/activity.ts';
import { replicatedIndex } from '../../shared/domain/verdict-feed/index.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('check');
const listsDir = await mkdtemp(join(tmpdir(), 'check-lists-'));
await fileSnapshotStore(listsDir).save(
  snapshotOf(
    suffixes,
    'vendor',
    'vendor-listed.example\n',
    'https://vendor.example/feed',
    new Date('2026-01-01T00:00:00Z'),
  ),
);
process.env.LISTS_DIR = listsDir;
const { createHandler } = await import('../../functions/check/check.ts');
const runtime = await import('../../shared/runtime.ts');
/** The check's replica of the verdicts; a test syncs it after writing instead of waiting for its poll. */
const replica = replicatedIndex({ log: verdictFeed(table.db, table.tableName) });
const handler = createHandler({ suffixes, keys: runtime.keys(), index: replica, sources: runtime.externalSources() });

const ORG_KEY = 'check-acme-read-0123456789';
const USER_KEY = 'check-user-0123456789abcdef';
const SAMPLE_EVENTS = readdirSync('events')
  .filter((file) => file.startsWith('check-'))
  .map((file) => ({ file, event: readSampleEvent(`events/${file}`) as APIGatewayProxyEventV2 }));

const activity = activityRepository(table.db, table.tableName);
let threats = 0;
/** Approves a threat of `content` through the activity feed, as the ingest does; returns what withdraws it. */
const approveThreat = async (content: string, watchlisted = false) => {
  const threat = {
    organization: 'acme',
    kind: 'threat',
    id: `threat-${++threats}`,
    content,
    assetType: 'URL',
    status: 'BLOCKED',
    watchlisted,
    createdAt: '2026-03-01T10:00:00Z',
  };
  await applyActivity(suffixes, activity, parseActivityChange(threat));
  return () =>
    applyActivity(
      suffixes,
      activity,
      parseActivityChange({ ...threat, status: 'REJECTED', updatedAt: '2026-03-02T10:00:00Z' }),
    );
};

const assets = assetRepository(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);
const allowlist = async (orgId: string, content: string) => {
  const { results } = await addAssets(suffixes, assets, groups, orgId, [{ content, type: 'URL' }]);
  return results[0]?.success ? results[0].id : Number.NaN;
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme' },
      { slug: 'globex', name: 'Globex' },
    ],
    users: [{ id: 'u-1', memberships: [{ organization: 'acme', status: 'ACTIVE' }] }],
    apiKeys: [
      { key: ORG_KEY, organization: 'acme', scopes: ['read'] },
      { key: USER_KEY, user: 'u-1' },
      // The demo keys the sample events carry.
      { key: 'demo-acme-0123456789abcdef', organization: 'acme' },
      { key: 'demo-acme-readonly-0123456789', organization: 'acme', scopes: ['read'] },
      { key: 'demo-user-u1-0123456789abcdef', user: 'u-1', scopes: ['read'] },
    ],
  });
});

describe('asset check against the replica of the verdicts on DynamoDB Local', () => {
  const checker = createChecker({ suffixes, timer: systemTimer, index: replica, sources: () => [] });
  const statusOf = async (content: string) => (await checker.check(content)).status;

  it('turns ALLOWED at the next sync once an organization allowlists the content, and UNKNOWN once it is deleted', async () => {
    expect(await statusOf('https://brand-new.example')).toBe('UNKNOWN');

    const id = await allowlist('acme', 'https://brand-new.example');
    await replica.sync();
    const afterAdding = await statusOf('https://www.brand-new.example/pricing');
    await removeAsset(assets, 'acme', id);
    await replica.sync();
    const afterDeleting = await statusOf('https://brand-new.example');

    expect([afterAdding, afterDeleting]).toEqual(['ALLOWED', 'UNKNOWN']);
  });

  it('stays ALLOWED while another organization still allowlists the same content', async () => {
    const acme = await allowlist('acme', 'https://shared-partner.example');
    await allowlist('globex', 'shared-partner.example');

    await removeAsset(assets, 'acme', acme);
    await replica.sync();

    expect(await statusOf('shared-partner.example')).toBe('ALLOWED');
  });

  it('turns BLOCKED at the next sync once a threat is approved, and UNKNOWN once it is withdrawn', async () => {
    expect(await statusOf('https://drainer.example/claim')).toBe('UNKNOWN');

    const withdraw = await approveThreat('drainer.example');
    await replica.sync();
    const afterApproving = await checker.check('https://drainer.example/claim');
    await withdraw();
    await replica.sync();
    const afterWithdrawing = await statusOf('https://drainer.example/claim');

    expect([afterApproving.status, afterApproving.watchStatus, afterWithdrawing]).toEqual([
      'BLOCKED',
      'DISABLED',
      'UNKNOWN',
    ]);
  });

  it('blocks a threat under an allowlisted brand domain while the brand domain stays ALLOWED', async () => {
    await allowlist('acme', 'https://acme-brand.example');
    await approveThreat('login.acme-brand.example', true);
    await replica.sync();

    const child = await checker.check('https://login.acme-brand.example/wallet');
    const brand = await checker.check('https://acme-brand.example');

    expect([child.status, child.watchStatus, brand.status]).toEqual(['BLOCKED', 'ENABLED', 'ALLOWED']);
  });
});

describe('POST /asset/check', () => {
  const check = (body: unknown, apiKey: string | null = ORG_KEY) =>
    call(handler, apiEvent({ method: 'POST', path: '/v2/asset/check', apiKey, body }));

  it('returns the published check result for a blocked URL, listing every consulted source', async () => {
    await approveThreat('handler-threat.example');
    await replica.sync();

    const response = await check({ content: 'https://handler-threat.example/connect' });

    expect(response).toEqual({
      statusCode: 200,
      headers: {
        'content-type': 'application/json',
        // The tests' stage budget (vitest.config.ts); the rate-limit tests check the values.
        'RateLimit-Limit': '100000',
        'RateLimit-Remaining': expect.stringMatching(/^\d+$/),
        'RateLimit-Reset': expect.stringMatching(/^\d+$/),
      },
      body: {
        status: 'BLOCKED',
        source: 'service',
        sources: [
          { source: 'service', status: 'BLOCKED' },
          { source: 'eth-phishing-detect', status: 'UNKNOWN' },
          { source: 'vendor', status: 'UNKNOWN' },
        ],
        message: 'handler-threat.example is a reported threat',
        watchStatus: 'DISABLED',
      },
    });
  });

  it('accepts a user key and ignores the type and detailed fields clients send', async () => {
    await allowlist('acme', 'https://handler-allowed.example');
    await replica.sync();

    const response = await check(
      { content: 'https://app.handler-allowed.example', type: 'URL', detailed: true },
      USER_KEY,
    );

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({
      status: 'ALLOWED',
      source: 'service',
      sources: [
        { source: 'service', status: 'ALLOWED' },
        { source: 'eth-phishing-detect', status: 'UNKNOWN' },
        { source: 'vendor', status: 'UNKNOWN' },
      ],
      reason: 'parent-domain',
      message: 'Inherited from handler-allowed.example, allowlisted by an organization',
    });
  });

  it('answers from the external lists loaded from the snapshot directory', async () => {
    const response = await check({ content: 'vendor-listed.example' });

    expect(response.body).toEqual({
      status: 'BLOCKED',
      source: 'vendor',
      sources: [
        { source: 'service', status: 'UNKNOWN' },
        { source: 'eth-phishing-detect', status: 'UNKNOWN' },
        { source: 'vendor', status: 'BLOCKED' },
      ],
      reason: 'external-source',
      message: 'vendor lists vendor-listed.example',
    });
  });

  it('answers 200 UNKNOWN with code internal-scheme for a browser page', async () => {
    const response = await check({ content: 'chrome://extensions' });

    expect(response.body).toEqual({
      status: 'UNKNOWN',
      source: 'service',
      sources: [{ source: 'service', status: 'UNKNOWN' }],
      code: 'internal-scheme',
      message: 'Browser-internal content is not checked',
    });
  });

  it.each([
    ['empty content', { content: '   ' }, 'content is required'],
    ['no content', { type: 'URL' }, 'content is required'],
    ['content that is not a string', { content: 42 }, 'content must be a string'],
    [
      'content longer than 4096 characters',
      { content: `https://a.example/${'x'.repeat(4096)}` },
      'content must be at most 4096 characters',
    ],
    ['a body that is not JSON', 'content=acme.com', 'Request body must be valid JSON'],
  ])('returns 400 BAD_REQUEST for %s', async (_case, body, message) => {
    const response = await check(body);

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(errorBody('BAD_REQUEST', message));
  });

  it.each(SAMPLE_EVENTS)('answers the sample event $file', async ({ file, event }) => {
    const response = await call(handler, event);

    expect(response.statusCode).toBe(file === 'check-empty-content.json' ? 400 : 200);
  });

  it('returns 401 UNAUTHORIZED without an API key', async () => {
    const response = await check({ content: 'acme.com' }, null);

    expect(response.statusCode).toBe(401);
    expect(response.body).toEqual(errorBody('UNAUTHORIZED', 'A valid API key is required'));
  });
});
