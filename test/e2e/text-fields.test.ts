import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { ROUTES } from '../../infra/routes.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';

const table = await createTestTable('e2e-text-fields');
const KEY = 'text-fields-org-key-0123456789abcdef';
const server = createGateway();
let base = '';
const ids = { group: 0, asset: 0, proposal: 0, proposalAsset: 0, webhook: '', detectionConfig: 0, submissions: '' };
process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
process.env.WEBHOOK_SECRETS_KEY_FILE = join(mkdtempSync(join(tmpdir(), 'text-fields-')), 'webhook-secrets.key');
const WEBHOOK = { url: 'http://127.0.0.1:9/hook', events: ['asset.status-updated'] };

const GENEROUS = { perSecond: 1000, burst: 1000 };

const USER_KEY = 'text-fields-user-key-0123456789abcdef';

const call = async (method: string, path: string, body?: unknown, key = KEY) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: JSON.parse(await response.text()) as Record<string, unknown> };
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'acme', name: 'Acme', brands: [{ slug: 'acme-wallet', name: 'Acme Wallet' }] }],
    apiKeys: [
      {
        key: KEY,
        organization: 'acme',
        rateLimits: { check: GENEROUS, read: GENEROUS, write: GENEROUS, report: GENEROUS },
      },
      { key: USER_KEY, user: 'ana', scopes: ['read', 'write'] },
    ],
    users: [{ id: 'ana', memberships: [{ organization: 'acme', status: 'ACTIVE' }] }],
    groups: [{ organization: 'acme', name: 'Wallets' }],
    assets: [{ organization: 'acme', content: 'https://acme.example/wallet', type: 'URL', group: 'Wallets' }],
    activity: [
      {
        organization: 'acme',
        kind: 'threat',
        id: 't-own-block',
        content: 'acme-own-block.xyz',
        assetType: 'URL',
        status: 'BLOCKED',
        createdAt: '2026-01-05T10:00:00Z',
      },
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  ids.group = ((await call('GET', '/organization/asset-groups')).body.groups as { id: number }[])[0]?.id ?? 0;
  ids.asset = ((await call('GET', '/organization/assets')).body.assets as { id: number }[])[0]?.id ?? 0;
  ids.webhook = (await call('POST', '/webhook/config', WEBHOOK)).body.id as string;
  const taxii = (await call('GET', '/taxii2/api/collections/')).body.collections as { id: string; title: string }[];
  ids.submissions = taxii.find((collection) => collection.title === 'submissions')?.id ?? '';
  const created = await call('POST', '/report/create', {
    title: 'A scam page',
    description: 'Seen in chat',
    assets: [{ content: 'https://acme-wallet-claim.xyz/login' }],
  });
  expect(created.status).toBe(200);
  const reports = (await call('GET', '/organization/reports')).body.reports as {
    proposals: { id: number; asset: { id: number } }[];
  }[];
  ids.proposal = reports[0]?.proposals[0]?.id ?? 0;
  ids.proposalAsset = reports[0]?.proposals[0]?.asset.id ?? 0;
  const config = await call('POST', '/detection/configs/create', { slug: 'acme', source: 'EXTERNAL' });
  ids.detectionConfig = config.body.id as number;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** `key`: the key the route takes (the organization's by default). */
type Case = { path: () => string; body: () => Record<string, unknown>; fields: string[]; key?: string };

/**
 * Every write route, with a request it would accept and every text field of that request (by dot
 * path). A route added to the table without a case here fails the coverage test below.
 */
const CASES: Record<string, Case> = {
  // The objects are STIX: each is checked on its own and a failing one is listed in the status (202), not refused.
  'taxii-add-objects': {
    path: () => `/taxii2/api/collections/${ids.submissions}/objects/`,
    body: () => ({
      objects: [
        {
          type: 'indicator',
          spec_version: '2.1',
          id: 'indicator--2b7f3c1d-5e6a-4b8c-9d0e-1f2a3b4c5d6e',
          created: '2026-05-01T00:00:00.000Z',
          modified: '2026-05-01T00:00:00.000Z',
          pattern: "[domain-name:value = 'acme-taxii-submitted.xyz']",
          pattern_type: 'stix',
          valid_from: '2026-05-01T00:00:00.000Z',
        },
      ],
    }),
    fields: [],
  },
  'create-webhook': {
    path: () => '/webhook/config',
    body: () => ({ ...WEBHOOK, description: 'SIEM', headers: { 'X-Webhook-Access-Key': 'access' } }),
    fields: ['url', 'description', 'headers.X-Webhook-Access-Key'],
  },
  'update-webhook': {
    path: () => `/webhook/config/${ids.webhook}`,
    body: () => ({ description: 'SIEM feed' }),
    fields: ['description'],
  },
  'test-webhook': { path: () => `/webhook/config/${ids.webhook}/test`, body: () => ({}), fields: [] },
  'delete-webhook': { path: () => `/webhook/config/${ids.webhook}`, body: () => ({}), fields: [] },
  'create-asset-group': {
    path: () => '/organization/asset-groups',
    body: () => ({ name: 'Bridges' }),
    fields: ['name'],
  },
  'update-asset-group': {
    path: () => `/organization/asset-groups/${ids.group}`,
    body: () => ({ groupId: ids.group, name: 'Hot wallets' }),
    fields: ['name', 'groupId'],
  },
  'delete-asset-group': {
    path: () => `/organization/asset-groups/${ids.group}`,
    body: () => ({ groupId: ids.group }),
    fields: ['groupId'],
  },
  'create-assets': {
    path: () => '/organization/assets',
    body: () => ({
      assets: [{ content: 'https://acme.example/bridge', type: 'URL', name: 'Bridge', description: 'The bridge' }],
    }),
    fields: ['assets.0.content', 'assets.0.type', 'assets.0.name', 'assets.0.description'],
  },
  'update-asset': {
    path: () => `/organization/assets/${ids.asset}`,
    body: () => ({ assetId: ids.asset, name: 'Wallet', description: 'The wallet' }),
    fields: ['assetId', 'name', 'description'],
  },
  'delete-asset': {
    path: () => `/organization/assets/${ids.asset}`,
    body: () => ({ assetId: ids.asset }),
    fields: ['assetId'],
  },
  'create-report': {
    path: () => '/report/create',
    body: () => ({
      title: 'Another scam page',
      description: 'Seen in chat',
      organizationSlug: 'acme',
      assets: [{ content: 'https://acme-airdrop.xyz/claim', status: 'BLOCKED' }],
      contactInfo: 'reporter@example.com',
      attachmentUrls: ['https://example.com/screenshot.png'],
      externalReporter: {
        platformIdentifier: '42',
        platform: 'discord',
        displayName: 'Bot',
        avatarUrl: 'https://x.y/a.png',
      },
    }),
    fields: [
      'title',
      'description',
      'organizationSlug',
      'assets.0.content',
      'assets.0.status',
      'contactInfo',
      'attachmentUrls.0',
      'externalReporter.platformIdentifier',
      'externalReporter.platform',
      'externalReporter.displayName',
      'externalReporter.avatarUrl',
    ],
  },
  'create-dispute': {
    path: () => '/dispute/create',
    body: () => ({ content: 'https://acme-airdrop.xyz/claim', email: 'owner@example.com', description: 'Our page' }),
    fields: ['content', 'email', 'description'],
  },
  'unblock-asset': {
    path: () => '/asset/unblock',
    body: () => ({ content: 'acme-own-block.xyz' }),
    fields: ['content'],
  },
  'submit-assets': {
    path: () => '/asset/submit',
    body: () => ({ assets: ['https://acme-wallet-support.xyz', 'acme-airdrop.xyz'], organizationSlug: 'acme' }),
    fields: ['assets.0', 'assets.1', 'organizationSlug'],
  },
  'start-scan': {
    path: () => '/asset/scan',
    body: () => ({ content: 'https://acme-wallet-support.xyz', organizationSlug: 'acme' }),
    fields: ['content', 'organizationSlug'],
  },
  'update-current-user': {
    path: () => '/user/me/update',
    body: () => ({ fullName: 'Ana Lima', avatarUrl: 'https://example.com/ana.png' }),
    fields: ['fullName', 'avatarUrl'],
    key: USER_KEY,
  },
  'create-detection-config': {
    path: () => '/detection/configs/create',
    body: () => ({
      slug: 'acme',
      source: 'DNS_TWIST',
      config: { domains: ['acme.com'] },
      cron: '0 6 * * *',
      title: 'Typosquats',
      description: 'Lookalikes of acme.com',
    }),
    fields: ['slug', 'source', 'config.domains.0', 'cron', 'title', 'description'],
  },
  'update-detection-config': {
    path: () => '/detection/configs/update',
    body: () => ({ slug: 'acme', configId: ids.detectionConfig, title: 'Pushed', description: 'From the API' }),
    fields: ['slug', 'title', 'description'],
  },
  'delete-detection-config': {
    path: () => '/detection/configs/delete',
    body: () => ({ slug: 'acme', configId: ids.detectionConfig }),
    fields: ['slug'],
  },
  'run-detection-configs': {
    path: () => '/detection/configs/run',
    body: () => ({ slug: 'acme', source: 'ASSET_CHECK' }),
    fields: ['slug', 'source'],
  },
  'validate-detection-configs': {
    path: () => '/detection/configs/validate',
    body: () => ({ slug: 'acme', source: 'EXTERNAL' }),
    fields: ['slug', 'source'],
  },
  'review-proposal': {
    path: () => `/organization/proposals/${ids.proposal}/review`,
    body: () => ({
      assetId: ids.proposalAsset,
      decision: 'WATCHLIST',
      watchlistReason: 'OTHER',
      note: 'Parked page',
      label: 'General Phishing',
      rejectReason: 'decayed',
    }),
    fields: ['decision', 'watchlistReason', 'note', 'label', 'rejectReason'],
  },
};

const withValue = (body: Record<string, unknown>, path: string, value: string): Record<string, unknown> => {
  const copy = structuredClone(body);
  const keys = path.split('.');
  let target: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = keys[keys.length - 1] as string;
  const current = target[last];
  target[last] = typeof current === 'string' ? `${current.slice(0, 2)}${value}${current.slice(2)}` : value;
  return copy;
};

const ACCEPTANCE_ORDER = [
  'taxii-add-objects',
  'review-proposal',
  'create-report',
  'create-dispute',
  'unblock-asset',
  'submit-assets',
  'start-scan',
  'update-current-user',
  'create-assets',
  'update-asset',
  'create-asset-group',
  'update-asset-group',
  'delete-asset',
  'delete-asset-group',
  'create-webhook',
  'update-webhook',
  'test-webhook',
  'delete-webhook',
  'create-detection-config',
  'update-detection-config',
  'run-detection-configs',
  'validate-detection-configs',
  'delete-detection-config',
];
const HOSTILE = { 'a lone surrogate': '\ud800', NUL: '\u0000' };
const writeRoutes = ROUTES.filter((route) => route.access === 'write');

describe('text fields of every write route', () => {
  it('has a case for every write route of the route table', () => {
    expect(writeRoutes.map((route) => route.name).sort()).toEqual(Object.keys(CASES).sort());
    expect([...ACCEPTANCE_ORDER].sort()).toEqual(Object.keys(CASES).sort());
  });

  for (const route of writeRoutes) {
    const cases = CASES[route.name];
    for (const field of cases?.fields ?? []) {
      for (const [name, value] of Object.entries(HOSTILE)) {
        it(`${route.method} ${route.path} answers 400 and writes nothing when ${field} holds ${name}`, async () => {
          const before = await tableSnapshot(table);

          const response = await call(
            route.method,
            (cases as Case).path(),
            withValue((cases as Case).body(), field, value),
            (cases as Case).key,
          );

          expect(response.status).toBe(400);
          expect(response.body.code).toBe('BAD_REQUEST');
          expect(await tableSnapshot(table)).toEqual(before);
        });
      }
    }
  }

  // Last: each case's own request is accepted, so the 400s above came from the hostile value alone
  // (in an order where no request removes what a later one needs).
  for (const name of ACCEPTANCE_ORDER) {
    it(`the ${name} case's request is accepted unchanged`, async () => {
      const cases = CASES[name] as Case;
      const route = writeRoutes.find((candidate) => candidate.name === name) as (typeof writeRoutes)[number];

      const response = await call(route.method, cases.path(), cases.body(), cases.key);

      // TAXII answers an add with 202 and its status resource.
      expect(response.status, JSON.stringify(response.body)).toBe(name === 'taxii-add-objects' ? 202 : 200);
    });
  }
});
