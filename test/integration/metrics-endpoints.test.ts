import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler as createGetMetrics } from '../../functions/metrics/get.ts';
import { createHandler as createPublicMetrics } from '../../functions/metrics/public.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { cachedKeyResolver, hashApiKey } from '../../shared/domain/account/api-keys.ts';
import { type ActivityChange, applyActivity, parseActivityChange } from '../../shared/domain/lifecycle/activity.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('metrics-endpoints');
/** The one clock of these tests: the last millisecond of a UTC day, so a second clock would disagree on "today". */
const NOW = Date.parse('2026-03-20T23:59:59.999Z');
const deps = {
  keys: cachedKeyResolver(apiKeyRepository(table.db, table.tableName)),
  metrics: metricsRepository(table.db, table.tableName),
  directory: directoryRepository(table.db, table.tableName),
  now: () => NOW,
};
const getMetrics = createGetMetrics(deps);
const publicMetrics = createPublicMetrics(deps);

const KEYS = {
  acme: 'metrics-acme-key-0123456789',
  globex: 'metrics-globex-key-0123456789',
  initech: 'metrics-initech-key-0123456789',
  member: 'metrics-user-key-0123456789',
  stranger: 'metrics-stranger-key-0123456789',
};
const NO_ACCESS = 'You do not have permission to access metrics for this organization';

const ACTIVITY: unknown[] = [
  { organization: 'acme', kind: 'report', id: 'r-1', brands: ['acme-wallet'], createdAt: '2026-03-01T10:00:00Z' },
  { organization: 'acme', kind: 'report', id: 'r-2', createdAt: '2026-03-02T10:00:00Z', deleted: true },
  {
    organization: 'acme',
    kind: 'threat',
    id: 't-1',
    content: 'acme-airdrop.xyz',
    assetType: 'URL',
    status: 'BLOCKED',
    watchlisted: true,
    brands: ['acme-wallet'],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: '2026-03-02T10:00:00Z',
  },
  {
    organization: 'acme',
    kind: 'threat',
    id: 't-2',
    content: 'https://x.com/acme_help',
    assetType: 'TWITTER',
    status: 'APPROVED',
    brands: ['acme-exchange'],
    createdAt: '2026-03-03T23:30:00-02:00',
  },
  {
    organization: 'acme',
    kind: 'threat',
    id: 't-3',
    content: 'https://t.me/acme_giveaway',
    assetType: 'TELEGRAM',
    status: 'PENDING',
    watchlisted: true,
    createdAt: '2026-03-02T08:00:00Z',
  },
  {
    organization: 'acme',
    kind: 'threat',
    id: 't-4',
    content: '0x52908400098527886E0F7030069857D2E4169EE7',
    assetType: 'ADDRESS',
    status: 'AUTO_APPROVED',
    createdAt: '2026-03-04T12:00:00Z',
  },
  {
    organization: 'acme',
    kind: 'takedown',
    id: 'td-1',
    status: 'COMPLETED',
    brands: ['acme-wallet'],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: '2026-03-05T10:00:00Z',
  },
  {
    organization: 'initech',
    kind: 'report',
    id: 'r-1',
    createdAt: '2026-03-16T12:00:00Z',
  },
  {
    organization: 'initech',
    kind: 'threat',
    id: 't-1',
    content: 'initech-login.example',
    assetType: 'PAGE',
    status: 'BLOCKED',
    createdAt: '2026-03-18T12:00:00Z',
  },
];

beforeAll(async () => {
  const directory = directoryRepository(table.db, table.tableName);
  const apiKeys = apiKeyRepository(table.db, table.tableName);
  await directory.putOrganization({ slug: 'acme', name: 'Acme', featureFlags: ['brands-metrics'] });
  await directory.putOrganization({ slug: 'globex', name: 'Globex', featureFlags: [] });
  await directory.putOrganization({ slug: 'initech', name: 'Initech', featureFlags: [] });
  for (const slug of ['acme-wallet', 'acme-exchange']) await directory.putBrand({ orgId: 'acme', slug, name: slug });
  await directory.putBrand({ orgId: 'globex', slug: 'globex-pay', name: 'Globex Pay' });
  await directory.putMembership({ userId: 'u-1', orgId: 'acme', status: 'ACTIVE' });
  await directory.putMembership({ userId: 'u-1', orgId: 'globex', status: 'INACTIVE' });
  const scopes: ('read' | 'write')[] = ['read'];
  for (const org of ['acme', 'globex', 'initech'] as const) {
    await apiKeys.put(hashApiKey(KEYS[org]), { kind: 'organization', orgId: org, scopes, revoked: false });
  }
  await apiKeys.put(hashApiKey(KEYS.member), { kind: 'user', userId: 'u-1', scopes, revoked: false });
  await apiKeys.put(hashApiKey(KEYS.stranger), { kind: 'user', userId: 'u-2', scopes, revoked: false });
  const store = activityRepository(table.db, table.tableName);
  for (const change of ACTIVITY) await applyActivity(suffixes, store, parseActivityChange(change) as ActivityChange);
});

const get = (apiKey: string | null, query?: Record<string, string>) =>
  call(getMetrics, apiEvent({ path: '/v2/organization/metrics', apiKey, query }));
const post = (apiKey: string | null, body: unknown) =>
  call(publicMetrics, apiEvent({ method: 'POST', path: '/v2/public/getOrganizationMetrics', apiKey, body }));

const MARCH_1_TO_5 = {
  metrics: {
    reports: 1,
    newThreats: 3,
    threatsWatchlisted: 2,
    takedownsFiled: 1,
    takedownsCompleted: 1,
    domainThreats: 1,
    twitterThreats: 1,
    telegramThreats: 0,
    otherThreats: 1,
  },
  blockedByType: [
    { type: 'ADDRESS', count: 1 },
    { type: 'TWITTER', count: 1 },
    { type: 'URL', count: 1 },
  ],
  blockedByDay: [
    { date: '2026-03-01', count: 1 },
    { date: '2026-03-02', count: 0 },
    { date: '2026-03-03', count: 0 },
    { date: '2026-03-04', count: 2 },
    { date: '2026-03-05', count: 0 },
  ],
};

describe('GET /organization/metrics', () => {
  it('returns the organization metrics of an inclusive date range, soft-deleted records excluded', async () => {
    const response = await get(KEYS.acme, { startDate: '2026-03-01', endDate: '2026-03-05' });

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual(MARCH_1_TO_5);
  });

  it('reads a date-time bound as the whole UTC day it falls on', async () => {
    const response = await get(KEYS.acme, { startDate: '2026-03-03T23:30:00-02:00', endDate: '2026-03-05T00:00:00Z' });

    expect(response.body).toMatchObject({
      metrics: { newThreats: 2, reports: 0, takedownsFiled: 0 },
      blockedByDay: [
        { date: '2026-03-04', count: 2 },
        { date: '2026-03-05', count: 0 },
      ],
    });
  });

  it('limits metrics to a brand, counts its takedowns by updatedAt and reports no watchlisted threats', async () => {
    const untilMarch4 = await get(KEYS.acme, {
      brandSlug: 'acme-wallet',
      startDate: '2026-03-01',
      endDate: '2026-03-04',
    });
    const untilMarch5 = await get(KEYS.acme, {
      brandSlug: 'acme-wallet',
      startDate: '2026-03-01',
      endDate: '2026-03-05',
    });

    expect(untilMarch4.body).toMatchObject({
      metrics: { reports: 1, newThreats: 1, threatsWatchlisted: 0, takedownsFiled: 0, takedownsCompleted: 0 },
    });
    expect(untilMarch5.body).toEqual({
      metrics: {
        reports: 1,
        newThreats: 1,
        threatsWatchlisted: 0,
        takedownsFiled: 1,
        takedownsCompleted: 1,
        domainThreats: 1,
        twitterThreats: 0,
        telegramThreats: 0,
        otherThreats: 0,
      },
      blockedByType: [{ type: 'URL', count: 1 }],
      blockedByDay: [
        { date: '2026-03-01', count: 1 },
        { date: '2026-03-02', count: 0 },
        { date: '2026-03-03', count: 0 },
        { date: '2026-03-04', count: 0 },
        { date: '2026-03-05', count: 0 },
      ],
    });
  });

  it('defaults to the first day with activity through the UTC day of the clock', async () => {
    const response = await get(KEYS.initech);

    expect(response.body).toEqual({
      metrics: expect.objectContaining({ reports: 1, newThreats: 1, domainThreats: 1 }),
      blockedByType: [{ type: 'PAGE', count: 1 }],
      blockedByDay: [
        { date: '2026-03-16', count: 0 },
        { date: '2026-03-17', count: 0 },
        { date: '2026-03-18', count: 1 },
        { date: '2026-03-19', count: 0 },
        { date: '2026-03-20', count: 0 },
      ],
    });
  });

  it('returns zeros and an empty series for an organization without activity', async () => {
    const response = await get(KEYS.globex);

    expect(response.body).toEqual({
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

  it('returns 400 with the documented message for a malformed date', async () => {
    const response = await get(KEYS.acme, { startDate: '2026-02-30' });

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(
      errorBody('BAD_REQUEST', 'Invalid date format. Use ISO 8601 format.', {
        issues: [{ message: 'Invalid date format. Use ISO 8601 format.', path: 'queryStringParameters.startDate' }],
      }),
    );
  });

  it('returns 400 when startDate is after endDate', async () => {
    const response = await get(KEYS.acme, { startDate: '2026-03-05', endDate: '2026-03-01' });

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST', message: 'startDate must not be after endDate' });
  });

  it('returns 403 for a brand when the organization lacks the brands-metrics flag', async () => {
    const response = await get(KEYS.globex, { brandSlug: 'globex-pay' });

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'Brand metrics are not enabled for this organization'));
  });

  it("returns 404 for a brand that is not one of the organization's", async () => {
    const response = await get(KEYS.acme, { brandSlug: 'globex-pay' });

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', 'Brand not found'));
  });

  it('returns 401 without a key and for a user key', async () => {
    const missing = await get(null);
    const userKey = await get(KEYS.member);

    expect([missing.statusCode, userKey.statusCode]).toEqual([401, 401]);
    expect(userKey.body).toEqual(errorBody('UNAUTHORIZED', 'API key with organization access required'));
  });
});

describe('POST /public/getOrganizationMetrics (deprecated)', () => {
  it('returns the metrics shape of GET /organization/metrics plus the legacy fields, marked deprecated', async () => {
    const response = await post(KEYS.acme, {
      organizationSlug: 'acme',
      startDate: '2026-03-01',
      endDate: '2026-03-05',
    });

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({
      ...MARCH_1_TO_5,
      metrics: {
        ...MARCH_1_TO_5.metrics,
        reportsCount: 1,
        threatsBlockedCount: 3,
        threatsBlockedByAssetType: [
          { assetType: 'ADDRESS', count: 1 },
          { assetType: 'TWITTER', count: 1 },
          { assetType: 'URL', count: 1 },
        ],
        domainsBlockedCount: 1,
        totalTakedownsFiledCount: 1,
        totalTakedownsCompletedCount: 1,
        totalDetections: 4,
      },
    });
    expect(response.headers).toMatchObject({
      Deprecation: expect.stringMatching(/^@\d+$/),
      Link: '</v2/organization/metrics>; rel="successor-version"',
    });
  });

  it("lets a user key read an organization where the user's membership is active, brand included", async () => {
    const response = await post(KEYS.member, {
      organizationSlug: 'acme',
      brandSlug: 'acme-exchange',
      startDate: '2026-03-01',
      endDate: '2026-03-05',
    });

    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({
      metrics: { newThreats: 1, twitterThreats: 1, threatsWatchlisted: 0 },
      blockedByType: [{ type: 'TWITTER', count: 1 }],
    });
  });

  it.each([
    ['an organization key asks for another organization', KEYS.acme, 'globex'],
    ['an organization key differs in case from its own slug', KEYS.acme, 'ACME'],
    ["a user key's membership is not active", KEYS.member, 'globex'],
    ['a user key has no membership', KEYS.stranger, 'acme'],
    ['the organization does not exist', KEYS.member, 'no-such-org'],
  ])('returns 403 with the same message when %s', async (_, apiKey, organizationSlug) => {
    const response = await post(apiKey, { organizationSlug });

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', NO_ACCESS));
    expect(response.headers).toMatchObject({ Link: '</v2/organization/metrics>; rel="successor-version"' });
  });

  it('returns 400 when organizationSlug is missing or a date is malformed', async () => {
    const missing = await post(KEYS.acme, {});
    const badDate = await post(KEYS.acme, { organizationSlug: 'acme', endDate: 'yesterday' });

    expect(missing.body).toMatchObject({ code: 'BAD_REQUEST', message: 'organizationSlug is required' });
    expect(badDate.body).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid date format. Use ISO 8601 format.' });
  });

  it('returns 401 without a valid key', async () => {
    const response = await post('not-a-key-0123456789', { organizationSlug: 'acme' });

    expect(response.statusCode).toBe(401);
  });
});
