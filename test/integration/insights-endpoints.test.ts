import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler as createMe } from '../../functions/account/me.ts';
import { createHandler as createOrg } from '../../functions/account/org.ts';
import { createHandler as createOrgs } from '../../functions/account/orgs.ts';
import { createHandler as createUpdateMe } from '../../functions/account/update-me.ts';
import { createHandler as createValidate } from '../../functions/account/validate.ts';
import { createHandler as createHealthchecks } from '../../functions/healthchecks/list.ts';
import { createHandler as createHealthcheck } from '../../functions/healthchecks/run.ts';
import { createHandler as createBreakdown } from '../../functions/insights/breakdown.ts';
import { createHandler as createFound } from '../../functions/insights/found.ts';
import { createHandler as createOrganizationReports } from '../../functions/insights/organization-reports.ts';
import { createHandler as createQueues } from '../../functions/insights/queues.ts';
import { createHandler as createReportsSearch } from '../../functions/insights/reports-search.ts';
import { createHandler as createSummary } from '../../functions/insights/summary.ts';
import { ROUTES } from '../../infra/routes.ts';
import { profileRepository, putProfile, settingsRepository } from '../../shared/db/account-repository.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { healthcheckFindingsRepository } from '../../shared/db/healthcheck-findings-repository.ts';
import { lifecycleRepository } from '../../shared/db/lifecycle-repository.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { openWorkRepository } from '../../shared/db/open-work-repository.ts';
import { cachedKeyResolver, hashApiKey } from '../../shared/domain/account/api-keys.ts';
import { HEALTHCHECK_KEYS } from '../../shared/domain/account/organization-settings.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { cursorCodec } from '../../shared/domain/core/cursor.ts';
import { recordNumber } from '../../shared/domain/core/ids.ts';
import { applyActivity, parseActivityChange } from '../../shared/domain/lifecycle/activity.ts';
import { assetIdOf } from '../../shared/domain/lifecycle/reports.ts';
import { apiEvent, call, errorBody, type Response } from '../fixtures/api-event.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('insights-endpoints');
const NOW = Date.parse('2026-03-20T12:00:00.000Z');
const directory = directoryRepository(table.db, table.tableName);
const settings = settingsRepository(table.db, table.tableName);
const profiles = profileRepository(table.db, table.tableName);
const store = activityRepository(table.db, table.tableName);
const deps = {
  keys: cachedKeyResolver(apiKeyRepository(table.db, table.tableName)),
  metrics: metricsRepository(table.db, table.tableName),
  directory,
  settings,
  profiles,
  work: openWorkRepository(table.db, table.tableName),
  findings: healthcheckFindingsRepository(table.db, table.tableName),
  store,
  lists: lifecycleRepository(table.db, table.tableName),
  detections: detectionRepository(table.db, table.tableName),
  cursors: cursorCodec(() => 'insights-test-secret'),
  suffixes,
  now: () => NOW,
};

const KEYS = {
  acme: 'insights-acme-key-0123456789',
  globex: 'insights-globex-key-0123456789',
  member: 'insights-member-key-0123456789',
  stranger: 'insights-stranger-key-0123456789',
  readOnly: 'insights-read-only-key-0123456789',
  bad: 'insights-unknown-key-0123456789',
};

const AIRDROP = 'acme-airdrop.xyz';
const airdropId = assetIdOf(entryKeyOf(suffixes, AIRDROP, 'URL') as string);
const ACTIVITY: unknown[] = [
  {
    organization: 'acme',
    kind: 'report',
    id: '1001',
    createdAt: '2026-03-01T10:00:00Z',
    status: 'IN_PROGRESS',
    reporter: { externalReporter: { platform: 'Discord' } },
    proposals: [
      { id: 2001, assetId: airdropId, content: AIRDROP, type: 'URL', reviewStatus: 'APPROVED' },
      { id: 2002, assetId: 77, content: 'acme-claim.xyz', type: 'URL', reviewStatus: 'PENDING' },
    ],
  },
  {
    organization: 'acme',
    kind: 'threat',
    id: '2001',
    reportId: '1001',
    assetId: airdropId,
    content: AIRDROP,
    assetType: 'URL',
    status: 'APPROVED',
    brands: ['acme-wallet'],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: '2026-03-01T10:30:00Z',
  },
  {
    organization: 'acme',
    kind: 'threat',
    id: 't-2',
    content: 'https://x.com/acme_help',
    assetType: 'TWITTER',
    status: 'BLOCKED',
    watchlisted: true,
    createdAt: '2026-03-10T08:00:00Z',
    updatedAt: '2026-03-10T10:00:00Z',
  },
  { organization: 'acme', kind: 'takedown', id: 'td-1', status: 'IN_PROGRESS', createdAt: '2026-03-02T10:00:00Z' },
  {
    organization: 'acme',
    kind: 'takedown',
    id: 'td-2',
    status: 'COMPLETED',
    brands: ['acme-wallet'],
    createdAt: '2026-03-03T10:00:00Z',
    updatedAt: '2026-03-04T16:00:00Z',
  },
  {
    organization: 'acme',
    kind: 'takedown',
    id: 'td-3',
    status: 'FAILED',
    createdAt: '2026-03-18T10:00:00Z',
    updatedAt: '2026-03-19T10:00:00Z',
  },
];

beforeAll(async () => {
  const apiKeys = apiKeyRepository(table.db, table.tableName);
  await directory.putOrganization({ slug: 'acme', name: 'Acme', featureFlags: ['brands-metrics'] });
  await directory.putOrganization({ slug: 'globex', name: 'Globex', featureFlags: [] });
  await directory.putBrand({ orgId: 'acme', slug: 'acme-wallet', name: 'Acme Wallet' });
  await directory.putMembership({ userId: 'u-1', orgId: 'acme', status: 'ACTIVE' });
  await directory.putMembership({ userId: 'u-1', orgId: 'globex', status: 'INACTIVE' });
  await putProfile(table.db, table.tableName, 'u-1', { email: 'ana@acme.example', fullName: 'Ana Lima' });
  await settings.put('acme', {
    contactUrl: 'https://t.me/acme_support',
    services: { takedowns: { active: true, automated: false, automationOffSince: '2026-01-01T00:00:00Z' } },
    healthcheckThresholds: { 'reviewing.old-proposals': { warn: 10, fail: 30 } },
  });
  const all: ('read' | 'write')[] = ['read', 'write'];
  await apiKeys.put(hashApiKey(KEYS.acme), { kind: 'organization', orgId: 'acme', scopes: all, revoked: false });
  await apiKeys.put(hashApiKey(KEYS.globex), { kind: 'organization', orgId: 'globex', scopes: all, revoked: false });
  await apiKeys.put(hashApiKey(KEYS.member), { kind: 'user', userId: 'u-1', scopes: all, revoked: false });
  await apiKeys.put(hashApiKey(KEYS.stranger), { kind: 'user', userId: 'u-2', scopes: all, revoked: false });
  await apiKeys.put(hashApiKey(KEYS.readOnly), { kind: 'user', userId: 'u-1', scopes: ['read'], revoked: false });
  for (const change of ACTIVITY) await applyActivity(suffixes, store, parseActivityChange(change));
});

type Case = {
  name: string;
  handler: Parameters<typeof call>[0];
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
  pathParameters?: Record<string, string>;
};

const send = (route: Case, apiKey: string | null, body: Record<string, unknown> | undefined = route.body) =>
  call(
    route.handler,
    apiEvent({ method: route.method, path: `/v2${route.path}`, apiKey, body, pathParameters: route.pathParameters }),
  );

const organizationScoped: Case[] = [
  { name: 'get-metrics-summary', handler: createSummary(deps), method: 'POST', path: '/metrics/summary' },
  {
    name: 'get-metrics-breakdown',
    handler: createBreakdown(deps),
    method: 'POST',
    path: '/metrics/breakdown',
    body: { by: 'type', metric: 'newThreats' },
  },
  { name: 'get-metrics-found', handler: createFound(deps), method: 'POST', path: '/metrics/found' },
  ...HEALTHCHECK_KEYS.map(
    (check): Case => ({
      name: `healthcheck-${check.replace('.', '-')}`,
      handler: createHealthcheck(deps),
      method: 'POST',
      path: `/healthchecks/${check.replace('.', '/')}`,
    }),
  ),
  { name: 'get-queues-snapshot', handler: createQueues(deps), method: 'POST', path: '/operations/queues/snapshot' },
  {
    name: 'search-reports',
    handler: createReportsSearch(deps),
    method: 'POST',
    path: '/reports/search',
    body: { assets: [AIRDROP] },
  },
  {
    name: 'get-public-organization-reports',
    handler: createOrganizationReports(deps),
    method: 'POST',
    path: '/public/getOrganizationReports',
  },
];

const RESOURCE: Record<string, string> = {
  'search-reports': 'reports',
  'get-public-organization-reports': 'reports',
  'get-queues-snapshot': 'queues',
};
const denied = (route: Case) =>
  `You do not have permission to access ${RESOURCE[route.name] ?? (route.path.startsWith('/metrics') ? 'metrics' : 'healthchecks')} for this organization`;

describe('the insights routes, for each kind of caller', () => {
  it('covers every insights route of the route table', () => {
    const insights = ROUTES.filter((route) => route.area === 'insights' && route.path !== '/organization/metrics');
    const covered = organizationScoped.map((route) => route.path);

    expect(
      insights
        .map((route) => route.path)
        .filter((path) => path !== '/public/getOrganizationMetrics' && path !== '/healthchecks/list')
        .sort(),
    ).toEqual([...covered].sort());
  });

  describe.each(organizationScoped)('$method $path', (route) => {
    it('answers 200 to the organization key, for its own organization', async () => {
      const response = await send(route, KEYS.acme);

      expect(response.statusCode).toBe(200);
    });

    it('answers a user key with `slug` of an active membership as the organization key does', async () => {
      const asOrganization = await send(route, KEYS.acme);
      const asMember = await send(route, KEYS.member, { ...route.body, slug: 'acme' });

      expect(asMember.statusCode).toBe(200);
      expect(asMember.body).toEqual(asOrganization.body);
    });

    it('returns 403 to a user key whose membership is not active, without slug, or unknown', async () => {
      const inactive = await send(route, KEYS.member, { ...route.body, slug: 'globex' });
      const noSlug = await send(route, KEYS.member);
      const stranger = await send(route, KEYS.stranger, { ...route.body, slug: 'acme' });

      for (const response of [inactive, noSlug, stranger]) {
        expect(response.statusCode).toBe(403);
        expect(response.body).toEqual(errorBody('FORBIDDEN', denied(route)));
      }
    });

    it('returns 403 to an organization key naming another organization', async () => {
      const response = await send(route, KEYS.globex, { ...route.body, slug: 'acme' });

      expect(response.statusCode).toBe(403);
    });

    it('returns 401 to a bad key and to no key', async () => {
      const bad = await send(route, KEYS.bad);
      const none = await send(route, null);

      expect(bad.statusCode).toBe(401);
      expect(none.statusCode).toBe(401);
    });
  });
});

const post = async (route: string, body: Record<string, unknown>, apiKey = KEYS.acme): Promise<Response> => {
  const found = organizationScoped.find((entry) => entry.path === route) as Case;
  return send(found, apiKey, body);
};

describe('POST /metrics/summary', () => {
  it('counts the organization’s records with the median times to block and to take down', async () => {
    const response = await post('/metrics/summary', {});

    expect(response.body).toEqual({
      reports: 1,
      newThreats: 2,
      threatsWatchlisted: 1,
      takedownsFiled: 3,
      takedownsCompleted: 1,
      domainThreats: 1,
      twitterThreats: 1,
      telegramThreats: 0,
      otherThreats: 0,
      detections: 0,
      disputes: 0,
      medianTimeToBlockMinutes: 30,
      // 30 h fall in the 5 % bucket that starts at 1738 minutes.
      medianTimeToTakedownHours: 28.97,
    });
  });

  it('narrows the counters and the medians to a brand', async () => {
    const response = await post('/metrics/summary', { brandSlug: 'acme-wallet' });

    expect(response.body).toMatchObject({
      newThreats: 1,
      domainThreats: 1,
      twitterThreats: 0,
      takedownsCompleted: 1,
      medianTimeToBlockMinutes: 30,
    });
  });

  it('returns 400 naming the field when a date is malformed', async () => {
    const response = await post('/metrics/summary', { startDate: '2026-02-30' });

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({ issues: [{ path: 'body.startDate' }] });
  });
});

describe('POST /metrics/breakdown', () => {
  it.each([
    [
      'type',
      [
        { key: 'TWITTER', value: 1 },
        { key: 'URL', value: 1 },
      ],
    ],
    [
      'source',
      [
        { key: 'ingest', value: 1 },
        { key: 'report', value: 1 },
      ],
    ],
    [
      'brand',
      [
        { key: 'NONE', value: 1 },
        { key: 'acme-wallet', value: 1 },
      ],
    ],
    [
      'day',
      [
        { key: '2026-03-01', value: 1 },
        { key: '2026-03-10', value: 1 },
      ],
    ],
  ])('splits new threats by %s', async (by, rows) => {
    const response = await post('/metrics/breakdown', { by, metric: 'newThreats' });

    expect(response.body).toEqual({ rows });
  });

  it('counts a report under its reporter’s platform', async () => {
    const response = await post('/metrics/breakdown', { by: 'source', metric: 'reports' });

    expect(response.body).toEqual({ rows: [{ key: 'discord', value: 1 }] });
  });

  it('returns 400 for an unknown metric', async () => {
    const response = await post('/metrics/breakdown', { by: 'day', metric: 'clicks' });

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({ issues: [{ path: 'body.metric' }] });
  });
});

describe('POST /metrics/found', () => {
  it('compares the window with the window of the same length before it', async () => {
    const response = await post('/metrics/found', { startDate: '2026-03-06', endDate: '2026-03-10' });

    expect(response.body).toEqual({ found: 1, previousPeriod: 1, startDate: '2026-03-06', endDate: '2026-03-10' });
  });
});

describe('the healthchecks', () => {
  const check = async (id: string, body: Record<string, unknown> = {}, apiKey = KEYS.acme) =>
    (await post(`/healthchecks/${id.replace('.', '/')}`, body, apiKey)).body as {
      id: string;
      severity: string;
      observed: number;
      key: string;
      status: string;
      value: number;
      detail: string;
      threshold: unknown;
      findings: unknown[];
      suggestedAction: string;
    };

  it('grades each check against the stage defaults or the organization’s own thresholds', async () => {
    const graded: Record<string, [string, number]> = {};
    for (const id of HEALTHCHECK_KEYS) {
      const { severity, observed } = await check(id);
      graded[id] = [severity, observed];
    }

    expect(graded).toEqual({
      'reviewing.backlog': ['ok', 1],
      'reviewing.old-proposals': ['warn', 19],
      'takedowns.todo-volume': ['ok', 0],
      'takedowns.in-progress-volume': ['ok', 1],
      'takedowns.stale-in-progress': ['fail', 18],
      'takedowns.cancelled-count': ['ok', 1],
      'takedowns.automation-off': ['fail', 78],
      'assets.dead-asset-spike': ['ok', 0],
      'detections.silent-configs': ['ok', 0],
      'organization.missing-contact-url': ['ok', 0],
    });
  });

  it('answers the published fields with the earlier names beside them, and lists the offenders of an age check', async () => {
    const proposals = await check('reviewing.old-proposals');
    const takedowns = await check('takedowns.stale-in-progress');
    const backlog = await check('reviewing.backlog');

    expect(proposals).toEqual({
      id: 'reviewing.old-proposals',
      severity: 'warn',
      observed: 19,
      threshold: { warn: 10, fail: 30 },
      findings: [
        {
          id: 2002,
          kind: 'proposal',
          createdAt: '2026-03-01T10:00:00.000Z',
          ageSeconds: (NOW - Date.parse('2026-03-01T10:00:00Z')) / 1000,
        },
      ],
      suggestedAction: 'Review the oldest pending proposals first (they are the findings).',
      key: 'reviewing.old-proposals',
      status: 'warn',
      value: 19,
      detail: '1 pending proposals 10 days old or older; the oldest was created 19 days ago (2026-03-01)',
    });
    expect(takedowns.findings).toEqual([
      {
        id: recordNumber('takedown', 'acme', 'td-1'),
        kind: 'takedown',
        createdAt: '2026-03-02T10:00:00.000Z',
        ageSeconds: (NOW - Date.parse('2026-03-02T10:00:00Z')) / 1000,
      },
    ]);
    expect(backlog).toMatchObject({ severity: 'ok', findings: [], suggestedAction: 'None: the check is ok.' });
  });

  it('grades against the stage’s thresholds where the organization set none of its own', async () => {
    const stage = {
      'reviewing.backlog': { warn: 1, fail: 2 },
      'takedowns.stale-in-progress': { warn: 30, fail: 40 },
      'reviewing.old-proposals': { warn: 1, fail: 2 },
    };
    const staged = async (id: string) =>
      (
        await send(
          {
            name: id,
            handler: createHealthcheck({ ...deps, thresholds: () => stage }),
            method: 'POST',
            path: `/healthchecks/${id.replace('.', '/')}`,
          },
          KEYS.acme,
          {},
        )
      ).body as { severity: string; threshold: unknown; findings: unknown[] };

    expect(await staged('reviewing.backlog')).toMatchObject({ severity: 'warn', threshold: { warn: 1, fail: 2 } });
    // Younger than the stage's warn age: not an offender.
    expect(await staged('takedowns.stale-in-progress')).toMatchObject({
      severity: 'ok',
      threshold: { warn: 30, fail: 40 },
      findings: [],
    });
    // The organization's own threshold stands over the stage's.
    expect(await staged('reviewing.old-proposals')).toMatchObject({
      severity: 'warn',
      threshold: { warn: 10, fail: 30 },
    });
  });

  it('counts the enabled detection configs that found fewer than the minimum in the window as silent', async () => {
    const HOUR = 3_600_000;
    const config = (id: number, status: 'ENABLED' | 'DISABLED', deletedAt: string | null = null) => ({
      id,
      orgId: 'globex',
      source: 'EXTERNAL' as const,
      brandId: null,
      title: `Config ${id}`,
      description: '',
      status,
      cron: null,
      config: {},
      createdAt: new Date(NOW - (400 + id) * HOUR).toISOString(),
      updatedAt: new Date(NOW - 400 * HOUR).toISOString(),
      deletedAt,
      lastRunAt: null,
      lastResultCount: null,
    });
    const run = (configId: number, runId: number, hoursAgo: number, resultCount: number) => ({
      orgId: 'globex',
      configId,
      runId,
      source: 'EXTERNAL' as const,
      status: 'SUCCEEDED' as const,
      resultCount,
      queuedAt: new Date(NOW - hoursAgo * HOUR).toISOString(),
      finishedAt: new Date(NOW - hoursAgo * HOUR).toISOString(),
    });
    const store = deps.detections;
    for (const created of [
      config(1, 'ENABLED'),
      config(2, 'ENABLED'),
      config(3, 'ENABLED'),
      config(4, 'DISABLED'),
      config(5, 'ENABLED', new Date(NOW - HOUR).toISOString()),
    ]) {
      await store.createConfig(created);
    }
    // 1 found 2 this week; 2 found nothing; 3 found 3, but 200 hours ago.
    for (const done of [run(1, 11, 10, 2), run(2, 21, 5, 0), run(3, 31, 200, 3)]) await store.putRun(done);
    const silent = (body: Record<string, unknown>) => check('detections.silent-configs', body, KEYS.globex);

    expect(await silent({})).toEqual(
      expect.objectContaining({
        severity: 'fail',
        observed: 2,
        detail: '2 of 3 enabled detection configs found fewer than 1 result in the last 168 hours (configs 2, 3)',
        // Oldest first: config 3 was created an hour before config 2.
        findings: [3, 2].map((id) => ({
          id,
          kind: 'config',
          createdAt: new Date(NOW - (400 + id) * HOUR).toISOString(),
          ageSeconds: (400 + id) * 3600,
        })),
      }),
    );
    expect((await silent({ lookbackHours: 300 })).observed).toBe(1);
    expect(await silent({ lookbackHours: 300, minResults: 3 })).toEqual(
      expect.objectContaining({ observed: 2, detail: expect.stringContaining('(configs 1, 2)') }),
    );
    expect((await silent({ minResults: 0 })).severity).toBe('ok');
    expect((await post('/healthchecks/detections/silent-configs', { lookbackHours: 0 }, KEYS.globex)).statusCode).toBe(
      400,
    );
  });

  it('lists the registry to any valid key, evaluating nothing, and 401 to a bad key', async () => {
    const list = (handler: Case['handler'], apiKey: string) =>
      send({ name: 'list-healthchecks', handler, method: 'POST', path: '/healthchecks/list' }, apiKey, {});
    const handler = createHealthchecks(deps);
    const asOrganization = await list(handler, KEYS.acme);
    const asStranger = await list(handler, KEYS.stranger);
    const bad = await list(handler, KEYS.bad);
    const checks = (asOrganization.body as { checks: { id: string; path: string; implemented: boolean }[] }).checks;

    expect(asOrganization.statusCode).toBe(200);
    expect(asStranger.body).toEqual(asOrganization.body);
    expect(bad.statusCode).toBe(401);
    expect(checks.filter((entry) => entry.implemented).map((entry) => entry.id)).toEqual([...HEALTHCHECK_KEYS]);
    expect(checks).toContainEqual({
      id: 'takedowns.stale-in-progress',
      title: 'Stale IN_PROGRESS Takedowns',
      path: '/healthchecks/takedowns/stale-in-progress',
      implemented: true,
    });
    expect(checks.filter((entry) => !entry.implemented)).toEqual(
      expect.arrayContaining([expect.objectContaining({ notImplementedReason: expect.any(String) })]),
    );
  });
});

describe('POST /operations/queues/snapshot', () => {
  const buckets = (older: number) => [
    { label: '<1d', count: 0 },
    { label: '1-3d', count: 0 },
    { label: '3-7d', count: 0 },
    { label: '7-14d', count: 0 },
    { label: '>14d', count: older },
  ];

  it('gives each queue its size, ages from the start of the creation day, and age buckets', async () => {
    const response = await post('/operations/queues/snapshot', {});

    expect(response.body).toEqual({
      windowHours: 168,
      queues: [
        {
          name: 'review',
          size: 1,
          oldestAgeSeconds: 19.5 * 86_400,
          p50AgeSeconds: 19.5 * 86_400,
          slaSeconds: 604_800,
          breaching: true,
          buckets: buckets(1),
          staleCount: 1,
        },
        {
          name: 'takedown',
          size: 1,
          oldestAgeSeconds: 18.5 * 86_400,
          p50AgeSeconds: 18.5 * 86_400,
          slaSeconds: 604_800,
          breaching: true,
          buckets: buckets(1),
          staleCount: 1,
        },
      ],
    });
  });

  it('counts as stale only what has waited the requested window or longer', async () => {
    const response = await post('/operations/queues/snapshot', { windowHours: 19 * 24 });
    const { queues } = response.body as { windowHours: number; queues: { name: string; staleCount: number }[] };

    expect((response.body as { windowHours: number }).windowHours).toBe(456);
    expect(queues.map(({ name, staleCount }) => [name, staleCount])).toEqual([
      ['review', 1],
      ['takedown', 0],
    ]);
  });

  it.each([0, 8761, 1.5, '168'])('returns 400 naming windowHours for %j', async (windowHours) => {
    const response = await post('/operations/queues/snapshot', { windowHours });

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({
      message: 'windowHours must be an integer between 1 and 8760',
      issues: [{ path: 'body.windowHours' }],
    });
  });
});

describe('POST /reports/search', () => {
  it('finds the reports proposing an asset in any form of its content, and none for unknown content', async () => {
    const response = await post('/reports/search', { assetContents: ['https://ACME-airdrop.xyz/', 'unknown.example'] });

    expect(response.body).toEqual({
      results: [
        {
          asset: 'https://ACME-airdrop.xyz/',
          reports: [{ id: 1001, status: 'IN_PROGRESS', createdAt: '2026-03-01T10:00:00.000Z' }],
        },
        { asset: 'unknown.example', reports: [] },
      ],
      reports: [{ id: 1001, status: 'IN_PROGRESS', assets: ['https://ACME-airdrop.xyz/'] }],
      totalCount: 1,
    });
  });

  it('still finds the caller’s report when many other organizations reported the content since', async () => {
    for (let n = 0; n < 30; n++) {
      const organization = `crowd-${n}`;
      await directory.putOrganization({ slug: organization, name: `Crowd ${n}`, featureFlags: [] });
      await applyActivity(
        suffixes,
        store,
        parseActivityChange({
          organization,
          kind: 'threat',
          id: `crowd-${n}`,
          assetId: airdropId,
          content: AIRDROP,
          assetType: 'URL',
          status: 'BLOCKED',
          createdAt: '2026-03-15T10:00:00Z',
          updatedAt: '2026-03-15T10:00:00Z',
        }),
      );
    }

    const response = await post('/reports/search', { assetContents: [AIRDROP] });

    expect(response.body).toMatchObject({ reports: [{ id: 1001, assets: [AIRDROP] }], totalCount: 1 });
  });

  it('returns 400 without assets', async () => {
    const response = await post('/reports/search', {});

    expect(response.statusCode).toBe(400);
  });
});

describe('POST /public/getOrganizationReports', () => {
  it('lists the reports with the deprecation headers', async () => {
    const response = await post('/public/getOrganizationReports', { slug: 'acme' });

    expect(response.body).toMatchObject({ reports: [{ id: 1001 }], nextCursor: null });
    expect(response.headers.Deprecation).toBe('@1767225600');
    expect(response.headers.Link).toBe('</v2/organization/reports>; rel="successor-version"');
  });
});

const me = createMe(deps);
const updateMe = createUpdateMe(deps);
const orgs = createOrgs(deps);
const org = createOrg(deps);
const validate = createValidate(deps);
const account = (handler: Case['handler'], method: 'GET' | 'POST', path: string, apiKey: string | null, extra = {}) =>
  call(handler, apiEvent({ method, path: `/v2${path}`, apiKey, ...extra }));

describe('the account routes', () => {
  it('POST /user/me answers the user of a user key, 403 to an organization key, 401 to a bad key', async () => {
    const user = await account(me, 'POST', '/user/me', KEYS.member);
    const organization = await account(me, 'POST', '/user/me', KEYS.acme);
    const bad = await account(me, 'POST', '/user/me', KEYS.bad);

    expect(user.body).toEqual({ id: 'u-1', email: 'ana@acme.example', fullName: 'Ana Lima', avatarUrl: null });
    expect(organization.statusCode).toBe(403);
    expect(bad.statusCode).toBe(401);
  });

  it('POST /user/me/update changes the name and avatar, and a key without write gets 403', async () => {
    const body = { fullName: 'Ana M. Lima', avatarUrl: 'https://cdn.acme.example/ana.png' };
    const updated = await account(updateMe, 'POST', '/user/me/update', KEYS.member, { body });
    const readOnly = await account(updateMe, 'POST', '/user/me/update', KEYS.readOnly, { body });
    const organization = await account(updateMe, 'POST', '/user/me/update', KEYS.acme, { body });
    const read = await account(me, 'POST', '/user/me', KEYS.member);

    expect(updated.body).toEqual({ id: 'u-1', email: 'ana@acme.example', ...body });
    expect(read.body).toEqual(updated.body);
    expect(readOnly.statusCode).toBe(403);
    expect(organization.statusCode).toBe(403);
  });

  it.each([
    'ana',
    'javascript:alert(document.cookie)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'file:///etc/passwd',
    'http://cdn.acme.example/ana.png',
  ])('POST /user/me/update returns 400 naming avatarUrl for %j and keeps the profile', async (avatarUrl) => {
    const before = await profiles.find('u-1');

    const response = await account(updateMe, 'POST', '/user/me/update', KEYS.member, { body: { avatarUrl } });

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({
      code: 'BAD_REQUEST',
      issues: [{ message: 'avatarUrl must be an absolute https URL', path: 'body.avatarUrl' }],
    });
    expect(await profiles.find('u-1')).toEqual(before);
  });

  it('POST /user/orgs lists the active memberships of a user key and an organization key’s own organization', async () => {
    const user = await account(orgs, 'POST', '/user/orgs', KEYS.member);
    const organization = await account(orgs, 'POST', '/user/orgs', KEYS.acme);
    const stranger = await account(orgs, 'POST', '/user/orgs', KEYS.stranger);

    // The defaults of every published field the organization's record does not set.
    const acme = {
      id: expect.any(Number),
      name: 'Acme',
      slug: 'acme',
      avatarUrl: null,
      subscriptionStatus: 'ACTIVE',
      services: {
        reporting: { active: true },
        reviewing: { active: true },
        protection: { active: true },
        takedowns: { active: true, automated: false },
        detection: { active: false },
        darkWebMonitoring: { active: false },
      },
      obligatoryAdminApproval: false,
      integrations: {
        slack: false,
        discord: false,
        telegram: { connected: false, groupCount: 0 },
        vercel: false,
        intercom: false,
        moderation: false,
      },
      legalDocuments: {
        letterOfAuthorization: { present: false, fileName: null, fileUrl: null },
        powerOfAttorney: { present: false, fileName: null, fileUrl: null },
      },
      trademarkRegistrations: [],
      role: 'MEMBER',
    };
    expect(user.body).toEqual({ organizations: [acme] });
    expect(organization.body).toEqual({ organizations: [{ ...acme, role: 'ORGANIZATION' }] });
    expect(stranger.body).toEqual({ organizations: [] });
  });

  it('GET /user/orgs/{slug} answers a reachable organization and 404 for any other', async () => {
    const get = (apiKey: string, slug: string) =>
      account(org, 'GET', `/user/orgs/${slug}`, apiKey, { pathParameters: { slug } });

    expect((await get(KEYS.member, 'acme')).body).toMatchObject({ slug: 'acme', role: 'MEMBER' });
    expect((await get(KEYS.member, 'globex')).statusCode).toBe(404);
    expect((await get(KEYS.stranger, 'acme')).statusCode).toBe(404);
    expect((await get(KEYS.globex, 'acme')).body).toEqual(errorBody('NOT_FOUND', 'Organization not found'));
  });

  it('GET /validate describes the key, and a bad key gets 401', async () => {
    const organization = await account(validate, 'GET', '/validate', KEYS.acme);
    const user = await account(validate, 'GET', '/validate', KEYS.readOnly);
    const bad = await account(validate, 'GET', '/validate', KEYS.bad);

    expect(organization.body).toEqual({
      valid: true,
      kind: 'organization',
      organization: { slug: 'acme' },
      scopes: ['read', 'write'],
    });
    expect(user.body).toEqual({ valid: true, kind: 'user', organization: null, scopes: ['read'] });
    expect(bad.statusCode).toBe(401);
  });
});
