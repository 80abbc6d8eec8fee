import { describe, expect, it } from 'vitest';
import { reviewComment, spendReview } from '../../../shared/domain/lifecycle/reviews.ts';

const DAY = 86_400_000;

describe('a review’s comment', () => {
  it('is composed from the reason and the note, as published', () => {
    expect(reviewComment({ assetId: 1, decision: 'APPROVE', label: 'General Phishing' })).toBe('General Phishing');
    expect(reviewComment({ assetId: 1, decision: 'APPROVE', label: 'C2 Server', note: 'Beacons home' })).toBe(
      'C2 Server: Beacons home',
    );
    expect(reviewComment({ assetId: 1, decision: 'WATCHLIST', watchlistReason: 'PARKING' })).toBe(
      'Add to watchlist: Parking page',
    );
    expect(reviewComment({ assetId: 1, decision: 'WATCHLIST', watchlistReason: 'OTHER', note: 'Shop' })).toBe(
      'Add to watchlist: Shop',
    );
    expect(reviewComment({ assetId: 1, decision: 'REJECT', rejectReason: 'not_targeting_org' })).toBe(
      'Not targeting the organization',
    );
  });
});

describe('the review budget window', () => {
  it('admits a use while fewer than the limit fall within the last 24 hours, dropping the older ones', () => {
    expect(spendReview([1_000, DAY + 500], 2, DAY + 1_000)).toEqual({ uses: [DAY + 500, DAY + 1_000] });
  });

  it('refuses at the limit, until the oldest of the last `limit` uses leaves the window', () => {
    expect(spendReview([1_000, 2_000, 3_000], 2, 10_000)).toEqual({ retryAfterSeconds: (DAY + 2_000 - 10_000) / 1000 });
  });
});
