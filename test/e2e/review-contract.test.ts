import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-review-contract');
const ACME = 'review-acme-key-0123456789abcdef';
const server = createGateway();
let base = '';
let proposals: { id: number; asset: { id: number } }[] = [];

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': ACME },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: JSON.parse(await response.text()) };
};
const review = (index: number, body: Record<string, unknown>) => {
  const proposal = proposals[index] as (typeof proposals)[number];
  return call('POST', `/organization/proposals/${proposal.id}/review`, { assetId: proposal.asset.id, ...body });
};

beforeAll(async () => {
  // The stage's default budget applies: no REVIEW_DAILY_LIMIT is set for this file.
  delete process.env.REVIEW_DAILY_LIMIT;
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'acme', name: 'Acme' }],
    apiKeys: [{ key: ACME, organization: 'acme' }],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  const created = await call('POST', '/report/create', {
    title: 'Drainer wave',
    description: 'Twelve sites',
    assets: Array.from({ length: 12 }, (_, i) => ({ content: `https://drainer-${i}.example/claim` })),
  });
  expect(created.status).toBe(200);
  proposals = (await call('GET', '/organization/reports')).body.reports[0].proposals;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('POST /organization/proposals/{proposalId}/review, as published', () => {
  it('answers 400 with the published message when APPROVE comes without a label', async () => {
    const response = await review(0, { decision: 'APPROVE' });

    expect(response.status).toBe(400);
    expect(response.body.message).toBe('`label` is required when approving a proposal');
  });

  it('answers an approval without a note with the label as its comment', async () => {
    const response = await review(0, { decision: 'APPROVE', label: 'General Phishing' });

    expect(response.status).toBe(200);
    expect(response.body.review).toEqual({
      id: expect.any(Number),
      decision: 'APPROVE',
      label: 'General Phishing',
      brandId: null,
      comment: 'General Phishing',
      createdAt: expect.any(String),
    });
  });

  it('answers a watchlisting as a REJECT with an empty label and the published comment', async () => {
    const parked = await review(1, { decision: 'WATCHLIST', watchlistReason: 'PARKING' });
    const other = await review(2, { decision: 'WATCHLIST', watchlistReason: 'OTHER', note: 'Redirects to a shop' });

    expect(parked.body).toEqual({
      proposal: {
        id: proposals[1]?.id,
        reviewStatus: 'REJECTED',
        asset: {
          id: proposals[1]?.asset.id,
          type: 'URL',
          content: 'https://drainer-1.example/claim',
          status: 'UNKNOWN',
        },
      },
      review: {
        id: expect.any(Number),
        decision: 'REJECT',
        label: '',
        brandId: null,
        comment: 'Add to watchlist: Parking page',
        createdAt: expect.any(String),
      },
      watchlisted: true,
    });
    expect(other.body.review.comment).toBe('Add to watchlist: Redirects to a shop');
  });

  it('composes a rejection’s comment from its reason and note', async () => {
    const response = await review(3, {
      decision: 'REJECT',
      rejectReason: 'insufficient_evidence',
      note: 'One screenshot',
    });

    expect(response.body.review).toMatchObject({ label: '', comment: 'Insufficient evidence: One screenshot' });
  });

  it('answers the eleventh review within 24 hours with 429, the published message and Retry-After', async () => {
    for (const index of [4, 5, 6, 7, 8, 9]) {
      expect((await review(index, { decision: 'REJECT', rejectReason: 'decayed' })).status).toBe(200);
    }

    const eleventh = await review(10, { decision: 'REJECT', rejectReason: 'decayed' });
    const proposal = await call('GET', '/organization/reports');

    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      message: 'Review limit of 10 per day reached for this organization.',
    });
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(86_000);
    expect(proposal.body.reports[0].proposals[10].reviewStatus).toBe('PENDING');
  });

  it('follows the stage setting of the budget', async () => {
    process.env.REVIEW_DAILY_LIMIT = '11';
    try {
      const eleventh = await review(10, { decision: 'REJECT', rejectReason: 'decayed' });
      const twelfth = await review(11, { decision: 'REJECT', rejectReason: 'decayed' });

      expect(eleventh.status).toBe(200);
      expect(twelfth.status).toBe(429);
      expect(twelfth.body.message).toBe('Review limit of 11 per day reached for this organization.');
    } finally {
      delete process.env.REVIEW_DAILY_LIMIT;
    }
  });
});
