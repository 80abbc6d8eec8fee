import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-lifecycle');
const BOT = 'bot-user-key-0123456789abcdef';
const ACME = 'acme-org-key-0123456789abcdef';
const GLOBEX = 'globex-org-key-0123456789abcdef';
const server = createGateway();
let base = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      {
        slug: 'acme',
        name: 'Acme',
        featureFlags: ['brands-metrics'],
        brands: [{ slug: 'acme-wallet', name: 'Acme Wallet' }],
      },
      { slug: 'globex', name: 'Globex', featureFlags: ['takedowns'] },
    ],
    users: [
      {
        id: 'discord-bot',
        memberships: [
          { organization: 'acme', status: 'ACTIVE' },
          { organization: 'globex', status: 'INACTIVE' },
        ],
      },
    ],
    apiKeys: [
      { key: BOT, user: 'discord-bot' },
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
    ],
    activity: [
      {
        organization: 'acme',
        kind: 'threat',
        id: 't-known',
        content: 'already-blocked.xyz',
        assetType: 'URL',
        status: 'BLOCKED',
        createdAt: '2026-01-05T10:00:00Z',
      },
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) };
};

const metrics = async (query = '') => (await call('GET', `/organization/metrics${query}`, ACME)).body.metrics;

describe('the threat lifecycle through the local gateway', () => {
  it('turns a bot report into reviewed proposals, a blocked threat, metrics and lookups', async () => {
    const before = await metrics();
    const brandBefore = await metrics('?brandSlug=acme-wallet');
    const contents = ['https://acme-wallet-claim.xyz/login', 'acme-support-desk.top', '@acme_help_desk'];

    const created = await call('POST', '/report/create', BOT, {
      title: 'Scam links in #general',
      description: 'Posted by a new member',
      organizationSlug: 'acme',
      assets: contents.map((content) => ({ content })),
      externalReporter: { platform: 'discord', platformIdentifier: '42', displayName: 'acme-bot' },
    });
    const queue = await call('GET', '/organization/reports?needsCustomerReview=true', ACME);
    const reported = queue.body.reports[0];
    const afterReport = await metrics();
    const brands = await call('GET', '/organization/brands', ACME);
    const brandId = brands.body.brands[0].id as number;
    const [first, second, third] = reported.proposals as { id: number; asset: { id: number } }[];

    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      createdAt: expect.any(String),
      organization: { id: expect.any(Number), slug: 'acme', name: 'Acme' },
    });
    expect(queue.body.reports).toHaveLength(1);
    expect(reported).toMatchObject({ id: created.body.id, title: 'Scam links in #general', status: 'TODO' });
    expect(reported.proposals.map((p: { reviewStatus: string }) => p.reviewStatus)).toEqual([
      'PENDING',
      'PENDING',
      'PENDING',
    ]);
    expect(reported.assets.map((a: { content: string; type: string }) => [a.content, a.type])).toEqual([
      [contents[0], 'URL'],
      [contents[1], 'URL'],
      [contents[2], 'TWITTER'],
    ]);
    expect(afterReport.reports).toBe(before.reports + 1);
    expect(brands.body).toEqual({
      brands: [
        {
          id: brandId,
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
    });

    const approved = await call('POST', `/organization/proposals/${first?.id}/review`, ACME, {
      assetId: first?.asset.id,
      decision: 'APPROVE',
      label: 'General Phishing',
      brandId,
    });
    const rejected = await call('POST', `/organization/proposals/${second?.id}/review`, ACME, {
      assetId: second?.asset.id,
      decision: 'REJECT',
      rejectReason: 'insufficient_evidence',
    });
    const watchlisted = await call('POST', `/organization/proposals/${third?.id}/review`, ACME, {
      assetId: third?.asset.id,
      decision: 'WATCHLIST',
      watchlistReason: 'PARKING',
    });
    const again = await call('POST', `/organization/proposals/${first?.id}/review`, ACME, {
      assetId: first?.asset.id,
      decision: 'REJECT',
      rejectReason: 'decayed',
    });
    const check = await call('POST', '/asset/check', BOT, { content: contents[0] });
    const after = await metrics();
    const brandAfter = await metrics('?brandSlug=acme-wallet');
    const threats = await call('POST', '/threats/list', ACME, {});
    const details = await call('POST', '/asset/details', BOT, { content: contents[0] });
    const closed = await call('GET', '/organization/reports', ACME);

    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({
      proposal: {
        id: first?.id,
        reviewStatus: 'APPROVED',
        asset: { id: first?.asset.id, type: 'URL', content: contents[0], status: 'BLOCKED' },
      },
      review: {
        id: expect.any(Number),
        decision: 'APPROVE',
        label: 'General Phishing',
        brandId,
        comment: 'General Phishing',
        createdAt: expect.any(String),
      },
      watchlisted: false,
    });
    expect(rejected.body.proposal.reviewStatus).toBe('REJECTED');
    expect(watchlisted.body).toMatchObject({
      proposal: { reviewStatus: 'REJECTED' },
      review: { decision: 'REJECT' },
      watchlisted: true,
    });
    expect(again.status).toBe(409);
    expect(check.body).toMatchObject({ status: 'BLOCKED', source: 'service' });
    expect(after.newThreats).toBe(afterReport.newThreats + 1);
    expect(after.threatsWatchlisted).toBe(afterReport.threatsWatchlisted + 1);
    expect(after.reports).toBe(afterReport.reports);
    expect(brandAfter.newThreats).toBe(brandBefore.newThreats + 1);
    expect(threats.body).toEqual({
      threats: [
        {
          id: first?.id,
          externalId: null,
          content: contents[0],
          type: 'URL',
          blockedAt: approved.body.review.createdAt,
        },
      ],
      next_page: null,
    });
    expect(details.status).toBe(200);
    expect(details.body).toEqual({
      status: 'BLOCKED',
      reason: 'report',
      reportId: created.body.id,
      reportUrl: `${base}/reports/${created.body.id}`,
    });
    expect(details.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(closed.body.reports[0].status).toBe('CLOSED');
  });
});

/** Every item of the table, in key order: equal snapshots mean nothing was written. */
const snapshot = async () => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(new ScanCommand({ TableName: table.tableName, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
};

const report = (assets: string[], key = ACME) =>
  call('POST', '/report/create', key, {
    title: 'Suspicious links',
    description: '',
    assets: assets.map((content) => ({ content })),
  });

describe('POST /report/create when an asset is invalid', () => {
  it.each([
    ['DUPLICATE_ASSETS', ['dup-phish.xyz', 'https://dup-phish.xyz/']],
    ['INVALID_FORMAT', ['valid-phish-1.xyz', 'http']],
    ['ASSET_ALREADY_CORRECT', ['valid-phish-2.xyz', 'already-blocked.xyz']],
    ['DOMAIN_NOT_ALLOWED', ['valid-phish-3.xyz', 'https://vercel.app']],
  ])('answers 422 %s and writes nothing', async (errorType, assets) => {
    const before = await snapshot();

    const response = await report(assets);

    // Duplicates are named as the published API names them: how many assets share their content.
    const message =
      errorType === 'DUPLICATE_ASSETS'
        ? 'Report creation failed: Duplicate assets found. 2 asset(s) appear multiple times in the same report.'
        : 'Report creation failed: 1 of 2 assets are invalid. All assets must be valid to create a report.';
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      code: 'UNPROCESSABLE_CONTENT',
      message,
      data: {
        errors: [{ asset: assets[1], errorType, message: expect.any(String), suggestion: expect.any(String) }],
      },
      error: { code: 'UNPROCESSABLE_CONTENT', message },
      requestId: expect.any(String),
    });
    expect(await snapshot()).toEqual(before);
  });

  it('answers 422 ALREADY_PENDING_REVIEW for content a pending proposal holds, and writes nothing', async () => {
    const first = await report(['pending-phish.xyz']);
    const before = await snapshot();

    const response = await report(['other-phish.xyz', 'https://pending-phish.xyz']);

    expect(first.status).toBe(200);
    expect(response.status).toBe(422);
    expect(response.body.data.errors).toEqual([
      {
        asset: 'https://pending-phish.xyz',
        errorType: 'ALREADY_PENDING_REVIEW',
        message: 'A proposal for this asset and status is already awaiting review',
        suggestion: 'Wait for the pending review to finish',
      },
    ]);
    expect(await snapshot()).toEqual(before);
  });
});

describe('the lifecycle across organizations', () => {
  it("answers 404 for another organization's proposal and never lists its records", async () => {
    const created = await report(['cross-tenant-phish.xyz']);
    const queue = await call('GET', '/organization/reports', ACME);
    const proposal = queue.body.reports.find((r: { id: number }) => r.id === created.body.id).proposals[0];
    const foreign = await call('POST', `/organization/proposals/${proposal.id}/review`, GLOBEX, {
      assetId: proposal.asset.id,
      decision: 'APPROVE',
      label: 'General Phishing',
    });
    const approved = await call('POST', `/organization/proposals/${proposal.id}/review`, ACME, {
      assetId: proposal.asset.id,
      decision: 'APPROVE',
      label: 'General Phishing',
    });
    const globexReports = await call('GET', '/organization/reports', GLOBEX);
    const globexThreats = await call('POST', '/threats/list', GLOBEX, {});
    const globexTakedowns = await call('POST', '/takedowns/list', GLOBEX, {});
    const acmeThreats = await call('POST', '/threats/list', ACME, { per_page: 100 });
    const acmeSearch = await call('POST', '/asset/search', ACME, { content: 'cross-tenant-phish.xyz' });
    const globexSearch = await call('POST', '/asset/search', GLOBEX, { assetId: proposal.asset.id });

    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Proposal not found');
    expect(approved.status).toBe(200);
    expect(acmeThreats.body.threats.map((t: { id: number }) => t.id)).toContain(proposal.id);
    expect(acmeSearch.body).toEqual({
      asset: {
        id: proposal.asset.id,
        content: 'cross-tenant-phish.xyz',
        type: 'URL',
        status: 'BLOCKED',
        watchStatus: 'DISABLED',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      reports: [{ id: created.body.id, title: 'Suspicious links', status: 'CLOSED', createdAt: expect.any(String) }],
      takedown: null,
      blockedBy: [{ consumer: 'blocklist', name: 'Prefix sync', consumedAt: expect.any(String) }],
    });
    // Globex sees the public verdict and when it changed, none of Acme's report's times.
    const verdictTime = globexSearch.body.asset.updatedAt;
    expect(globexSearch.body).toEqual({
      ...acmeSearch.body,
      asset: { ...acmeSearch.body.asset, createdAt: verdictTime, updatedAt: verdictTime },
      reports: [],
    });
    expect(verdictTime).not.toBe(created.body.createdAt);
    expect(globexReports.body).toEqual({ reports: [], nextCursor: null, cursor: null });
    expect(globexThreats.body).toEqual({ threats: [], next_page: null });
    expect(globexTakedowns.body).toEqual({ takedowns: [], next_page: null });
  });

  it('lets a user key act only for organizations where it is an ACTIVE member', async () => {
    const active = await call('POST', '/threats/list', BOT, { organizationSlug: 'acme' });
    const inactive = await call('POST', '/threats/list', BOT, { organizationSlug: 'globex' });
    const unknown = await call('POST', '/threats/list', BOT, { organizationSlug: 'initech' });
    const reportInactive = await call('POST', '/report/create', BOT, {
      title: 'Scam',
      description: '',
      organizationSlug: 'globex',
      assets: [{ content: 'globex-phish.xyz' }],
    });

    expect(active.status).toBe(200);
    expect(inactive.status).toBe(403);
    expect(inactive.body.message).toBe('You do not have permission to access threats for this organization');
    expect(unknown.status).toBe(403);
    expect(reportInactive.status).toBe(403);
    expect(reportInactive.body.message).toBe('You do not have permission to access reports for this organization');
  });
});
