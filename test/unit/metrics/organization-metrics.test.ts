import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { legacyOrganizationMetrics, organizationMetrics } from '../../../shared/domain/insights/metrics.ts';
import { ForbiddenError, NotFoundError } from '../../../shared/errors.ts';
import { fakeMetricsStores } from './fake-metrics-stores.ts';
import { recountCounters } from './recount.ts';

const TODAY = '2026-03-10';
const ACME_DAYS = {
  acme: {
    '2026-02-27': { reports: 0, threats_URL: 0 },
    '2026-03-01': { reports: 2, threats_URL: 1, watchlisted: 1 },
    '2026-03-03': { threats_TWITTER: 2, threats_ADDRESS: 1, takedownsFiled: 1 },
    '2026-03-05': { threats_PAGE: 1, threats_TELEGRAM: 1, takedownsFiled: 1, takedownsCompleted: 1 },
    '2026-03-12': { threats_URL: 4 },
  },
  'acme/acme-wallet': {
    '2026-03-03': { threats_TWITTER: 1, takedownsFiled: 1 },
  },
};
const series = (from: number, to: number, counts: Record<number, number> = {}) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    date: `2026-03-${String(from + i).padStart(2, '0')}`,
    count: counts[from + i] ?? 0,
  }));

describe('organizationMetrics', () => {
  it('sums the day counters of an inclusive range into the published organization metrics', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const result = await organizationMetrics(stores, 'acme', { startDate: '2026-03-01', endDate: '2026-03-05' }, TODAY);

    expect(result).toEqual({
      metrics: {
        reports: 2,
        newThreats: 6,
        threatsWatchlisted: 1,
        takedownsFiled: 2,
        takedownsCompleted: 1,
        domainThreats: 2,
        twitterThreats: 2,
        telegramThreats: 1,
        otherThreats: 1,
      },
      blockedByType: [
        { type: 'TWITTER', count: 2 },
        { type: 'ADDRESS', count: 1 },
        { type: 'PAGE', count: 1 },
        { type: 'TELEGRAM', count: 1 },
        { type: 'URL', count: 1 },
      ],
      blockedByDay: series(1, 5, { 1: 1, 3: 3, 5: 2 }),
    });
  });

  it('includes both edge days and excludes the days just outside', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const inside = await organizationMetrics(stores, 'acme', { startDate: '2026-03-03', endDate: '2026-03-05' }, TODAY);
    const outside = await organizationMetrics(
      stores,
      'acme',
      { startDate: '2026-03-04', endDate: '2026-03-04' },
      TODAY,
    );

    expect(inside.metrics.newThreats).toBe(5);
    expect(outside.metrics.newThreats).toBe(0);
    expect(outside.blockedByDay).toEqual(series(4, 4));
  });

  it('defaults to the first day with activity through today, never counting days after today', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const result = await organizationMetrics(stores, 'acme', {}, TODAY);

    expect(result.metrics.newThreats).toBe(6);
    expect(result.blockedByDay).toEqual(series(1, 10, { 1: 1, 3: 3, 5: 2 }));
  });

  it('clamps an endDate after today to today', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const result = await organizationMetrics(stores, 'acme', { startDate: '2026-03-05', endDate: '2026-03-31' }, TODAY);

    expect(result.metrics.newThreats).toBe(2);
    expect(result.blockedByDay).toEqual(series(5, 10, { 5: 2 }));
  });

  it('starts the series at the first activity day when startDate is earlier', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const result = await organizationMetrics(stores, 'acme', { startDate: '2026-02-01', endDate: '2026-03-02' }, TODAY);

    expect(result.blockedByDay).toEqual(series(1, 2, { 1: 1 }));
  });

  it('returns a dense series of zeros for a range after the activity began but without any', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const result = await organizationMetrics(stores, 'acme', { startDate: '2026-03-06', endDate: '2026-03-08' }, TODAY);

    expect(result.metrics.newThreats).toBe(0);
    expect(result.blockedByDay).toEqual(series(6, 8));
  });

  it.each([
    ['wholly before the first activity day', { startDate: '2026-01-01', endDate: '2026-02-28' }],
    ['wholly after today', { startDate: '2026-03-11', endDate: '2026-03-20' }],
  ])('returns an empty series for a range %s', async (_, query) => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const result = await organizationMetrics(stores, 'acme', query, TODAY);

    expect(result.blockedByDay).toEqual([]);
    expect(result.metrics.newThreats).toBe(0);
  });

  it('returns zeros and an empty series for an organization without activity', async () => {
    const { stores } = fakeMetricsStores({});

    const result = await organizationMetrics(stores, 'acme', {}, TODAY);

    expect(result).toEqual({
      metrics: {
        reports: 0,
        newThreats: 0,
        threatsWatchlisted: 0,
        takedownsFiled: 0,
        takedownsCompleted: 0,
        domainThreats: 0,
        twitterThreats: 0,
        telegramThreats: 0,
        otherThreats: 0,
      },
      blockedByType: [],
      blockedByDay: [],
    });
  });

  it('ignores days whose counters all fell back to zero when finding the first activity day', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const result = await organizationMetrics(stores, 'acme', { endDate: '2026-03-02' }, TODAY);

    expect(result.blockedByDay[0]).toEqual({ date: '2026-03-01', count: 1 });
  });

  it('reads one range of days, and no more, when the range opens on an active day', async () => {
    const { stores, reads } = fakeMetricsStores(ACME_DAYS);

    await organizationMetrics(stores, 'acme', { startDate: '2026-03-01', endDate: '2026-03-05' }, TODAY);

    expect(reads).toEqual({ ranges: 1, probes: 0 });
  });

  it('rejects a startDate after the endDate', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    await expect(
      organizationMetrics(stores, 'acme', { startDate: '2026-03-05', endDate: '2026-03-04' }, TODAY),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'startDate must not be after endDate',
      issues: [{ message: 'startDate must not be after endDate', path: 'startDate' }],
    });
  });

  it('limits metrics to a brand and reports no watchlisted threats there', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS);

    const result = await organizationMetrics(stores, 'acme', { brandSlug: 'acme-wallet' }, TODAY);

    expect(result.metrics).toMatchObject({
      newThreats: 1,
      twitterThreats: 1,
      threatsWatchlisted: 0,
      takedownsFiled: 1,
    });
    expect(result.blockedByDay).toEqual(series(3, 10, { 3: 1 }));
  });

  it('refuses a brand with 403 without the brands-metrics flag, before looking the brand up', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS, {
      organizations: [{ slug: 'acme', name: 'Acme', featureFlags: [] }],
    });

    await expect(organizationMetrics(stores, 'acme', { brandSlug: 'no-such-brand' }, TODAY)).rejects.toThrow(
      new ForbiddenError('Brand metrics are not enabled for this organization'),
    );
  });

  it('refuses with 404 a brand that is not one of the organization’s', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS, { brands: { acme: ['acme-wallet'], globex: ['globex-pay'] } });

    await expect(organizationMetrics(stores, 'acme', { brandSlug: 'globex-pay' }, TODAY)).rejects.toThrow(
      new NotFoundError('Brand not found'),
    );
  });

  it('equals a recount of the raw day counters for any counters and range', async () => {
    const counters = ['reports', 'watchlisted', 'takedownsFiled', 'takedownsCompleted'];
    const threats = ['URL', 'PAGE', 'TWITTER', 'TELEGRAM', 'ADDRESS', 'DISCORD'].map((type) => `threats_${type}`);
    const dayCounters = fc.dictionary(fc.constantFrom(...counters, ...threats), fc.nat(5));
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.integer({ min: 1, max: 20 }).map((d) => `2026-03-${String(d).padStart(2, '0')}`),
          dayCounters,
        ),
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
        async (days, start, length) => {
          const { stores } = fakeMetricsStores({ acme: days });
          const startDate = start === undefined ? undefined : `2026-03-${String(start).padStart(2, '0')}`;
          const end = (start ?? 1) + (length ?? 0);
          const endDate = length === undefined ? undefined : `2026-03-${String(end).padStart(2, '0')}`;

          const result = await organizationMetrics(stores, 'acme', { startDate, endDate }, '2026-03-15');

          expect(result).toEqual(recountCounters(days, { startDate, endDate }, '2026-03-15'));
        },
      ),
    );
  });
});

describe('legacyOrganizationMetrics', () => {
  const memberships = [
    { userId: 'u-1', orgId: 'acme', status: 'ACTIVE' as const },
    { userId: 'u-2', orgId: 'acme', status: 'INVITED' as const },
  ];
  const query = { organizationSlug: 'acme', startDate: '2026-03-01', endDate: '2026-03-05' };

  it('adds the legacy fields to the metrics of an allowed caller', async () => {
    const { stores } = fakeMetricsStores(ACME_DAYS, { memberships });

    const result = await legacyOrganizationMetrics(stores, { kind: 'user', userId: 'u-1' }, query, TODAY);

    expect(result.metrics).toMatchObject({
      reportsCount: 2,
      threatsBlockedCount: 6,
      threatsBlockedByAssetType: [
        { assetType: 'TWITTER', count: 2 },
        { assetType: 'ADDRESS', count: 1 },
        { assetType: 'PAGE', count: 1 },
        { assetType: 'TELEGRAM', count: 1 },
        { assetType: 'URL', count: 1 },
      ],
      domainsBlockedCount: 2,
      totalTakedownsFiledCount: 2,
      totalTakedownsCompletedCount: 1,
      totalDetections: 8,
    });
  });

  it.each([
    ['an organization key of another organization', { kind: 'organization' as const, orgId: 'globex' }],
    ['a user whose membership is not active', { kind: 'user' as const, userId: 'u-2' }],
    ['a user without membership', { kind: 'user' as const, userId: 'u-3' }],
  ])('refuses %s with the one 403 message', async (_, caller) => {
    const { stores } = fakeMetricsStores(ACME_DAYS, { memberships });

    await expect(legacyOrganizationMetrics(stores, caller, query, TODAY)).rejects.toThrow(
      new ForbiddenError('You do not have permission to access metrics for this organization'),
    );
  });
});
