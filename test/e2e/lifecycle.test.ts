import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-lifecycle');
// The asset check caches index reads for 10 s by default; this story reads its own writes at once.
process.env.CHECK_CACHE_TTL_MS = '0';
const BOT = 'bot-user-key-0123456789abcdef';
const ACME = 'acme-org-key-0123456789abcdef';
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
    ],
    users: [{ id: 'discord-bot', memberships: [{ organization: 'acme', status: 'ACTIVE' }] }],
    apiKeys: [
      { key: BOT, user: 'discord-bot' },
      { key: ACME, organization: 'acme' },
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
      brands: [{ id: brandId, slug: 'acme-wallet', name: 'Acme Wallet', type: 'ORGANIZATION' }],
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
        comment: null,
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
      threats: [{ id: first?.id, content: contents[0], type: 'URL', blockedAt: approved.body.review.createdAt }],
      next_page: null,
    });
    expect(details.status).toBe(200);
    expect(details.body).toEqual({ status: 'BLOCKED', reason: 'report', reportId: created.body.id });
    expect(details.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(closed.body.reports[0].status).toBe('CLOSED');
  });
});
