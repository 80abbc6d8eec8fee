import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { ROUTES } from '../../infra/routes.ts';
import { webhookRepository } from '../../shared/db/webhook-repository.ts';
import { HEALTHCHECK_KEYS } from '../../shared/domain/account/organization-settings.ts';
import { expressionsOf, fullHash, prefixHex, prefixOf } from '../../shared/domain/blocklist/expressions.ts';
import { eventually } from '../fixtures/eventually.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

/*
 * Another organization's reports, proposals and reviews never reach a caller through any lookup
 * or listing, whatever their status: Globex reports four contents and leaves one pending, rejects
 * one, approves one and watchlists one; Acme's key then asks every read route about them. The
 * service's public verdicts (a block, a watch flag, and the time the verdict changed, which the
 * changelog publishes) are not Globex's records and may show.
 */
const table = await createTestTable('e2e-tenancy');
const ACME_WEBHOOK = '0123456789abcdef';
const ACME = 'acme-tenancy-key-0123456789abcdef';
const GLOBEX = 'globex-tenancy-key-0123456789abcdef';
const STATUSES = ['pending', 'rejected', 'approved', 'watchlisted'] as const;
type Status = (typeof STATUSES)[number];
const CONTENT: Record<Status, string> = {
  pending: 'globex-pending-phish.xyz',
  rejected: 'globex-rejected-phish.xyz',
  approved: 'globex-approved-phish.xyz',
  watchlisted: 'globex-watchlisted-phish.xyz',
};
const REVIEW: Record<Exclude<Status, 'pending'>, object> = {
  rejected: { decision: 'REJECT', rejectReason: 'insufficient_evidence' },
  approved: { decision: 'APPROVE', label: 'General Phishing' },
  watchlisted: { decision: 'WATCHLIST', watchlistReason: 'DEAD' },
};

const server = createGateway();
let base = '';

type Answer = { status: number; body: unknown };
/** Acme's TAXII collection ids, an object and a status, known once it exists: `{name}` in a path. */
const taxiiIds: Record<string, string> = {};
const call = async (method: string, path: string, key: string, body?: unknown): Promise<Answer> => {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => taxiiIds[name] ?? '');
  const response = await fetch(`${base}${filled}`, {
    method,
    headers: { 'X-API-KEY': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
};

/** Acme's calls whose answers are Acme's own records and figures: Globex's activity must not move them. */
const ownCalls: [route: string, method: string, path: string, body?: unknown][] = [
  ['list-reports', 'GET', '/organization/reports'],
  ['list-reports', 'GET', '/organization/reports?needsCustomerReview=true'],
  ['list-reports', 'GET', '/organization/reports?onlyRejected=true'],
  ['list-threats', 'POST', '/threats/list', { startDate: '2020-01-01' }],
  ['list-takedowns', 'POST', '/takedowns/list', { startDate: '2020-01-01' }],
  ['get-metrics', 'GET', '/organization/metrics?startDate=2020-01-01'],
  ['list-webhooks', 'GET', '/webhook/config'],
  ['list-webhook-deliveries', 'GET', `/webhook/config/${ACME_WEBHOOK}/deliveries`],
  ['get-public-metrics', 'POST', '/public/getOrganizationMetrics', { organizationSlug: 'acme' }],
  ['list-assets', 'GET', '/organization/assets'],
  ['list-asset-groups', 'GET', '/organization/asset-groups'],
  ['list-brands', 'GET', '/organization/brands'],
  ['get-metrics-summary', 'POST', '/metrics/summary', { startDate: '2020-01-01' }],
  ['get-metrics-breakdown', 'POST', '/metrics/breakdown', { by: 'source', metric: 'reports', startDate: '2020-01-01' }],
  ['get-metrics-found', 'POST', '/metrics/found', {}],
  ['list-healthchecks', 'POST', '/healthchecks/list', {}],
  ['get-queues-snapshot', 'POST', '/operations/queues/snapshot', {}],
  ...HEALTHCHECK_KEYS.map((check): [string, string, string, unknown] => [
    `healthcheck-${check.replace('.', '-')}`,
    'POST',
    `/healthchecks/${check.replace('.', '/')}`,
    {},
  ]),
  ['get-public-organization-reports', 'POST', '/public/getOrganizationReports', { organizationSlug: 'acme' }],
  ['list-user-organizations', 'POST', '/user/orgs', {}],
  ['get-user-organization', 'GET', '/user/orgs/acme'],
  ['validate-key', 'GET', '/validate'],
  ['list-detection-sources', 'GET', '/detection/sources'],
  ['list-detection-configs', 'POST', '/detection/configs/list', { slug: 'acme' }],
  ['list-detections', 'POST', '/detection/list', { slug: 'acme' }],
  ['get-detection-drift', 'POST', '/detection/drift', { slug: 'acme' }],
  ['taxii-discovery', 'GET', '/taxii2/'],
  // The host root, outside the base (fetch resolves the dot segment before sending).
  ['taxii-root-discovery', 'GET', '/../taxii2/'],
  ['taxii-api-root', 'GET', '/taxii2/api/'],
  ['taxii-list-collections', 'GET', '/taxii2/api/collections/'],
  ['taxii-get-collection', 'GET', '/taxii2/api/collections/{blocked}/'],
  ['taxii-get-objects', 'GET', '/taxii2/api/collections/{blocked}/objects/'],
  ['taxii-get-manifest', 'GET', '/taxii2/api/collections/{blocked}/manifest/'],
  ['taxii-get-object', 'GET', '/taxii2/api/collections/{blocked}/objects/{object}/'],
  ['taxii-get-versions', 'GET', '/taxii2/api/collections/{blocked}/objects/{object}/versions/'],
  ['taxii-delete-object', 'DELETE', '/taxii2/api/collections/{blocked}/objects/{object}/'],
  ['taxii-get-status', 'GET', '/taxii2/api/status/{status}/'],
];

/** Acme's calls about the service's knowledge of a content (or about everything it knows). */
const lookupCalls = (
  status: Status,
  assetId: number,
): [route: string, method: string, path: string, body?: unknown][] => [
  ['search-asset', 'POST', '/asset/search', { content: CONTENT[status] }],
  ['search-asset', 'POST', '/asset/search', { assetId }],
  ['asset-details', 'POST', '/asset/details', { content: CONTENT[status] }],
  ['check-asset', 'POST', '/asset/check', { content: CONTENT[status] }],
  ['list-verdicts', 'POST', '/asset/list', { type: 'URL', status: 'BLOCKED', startDate: '2020-01-01' }],
  ['list-verdicts', 'POST', '/asset/list', { type: 'URL', status: 'UNKNOWN', startDate: '2020-01-01' }],
  ['get-changelog', 'POST', '/asset/changelog', { type: 'URL' }],
  ['search-reports', 'POST', '/reports/search', { assets: [CONTENT[status]] }],
  ['get-metrics-summary', 'POST', '/metrics/summary', { slug: 'globex', startDate: '2020-01-01' }],
  ['list-healthchecks', 'POST', '/healthchecks/list', { slug: 'globex' }],
  ['get-queues-snapshot', 'POST', '/operations/queues/snapshot', { slug: 'globex' }],
  ['get-public-organization-reports', 'POST', '/public/getOrganizationReports', { organizationSlug: 'globex' }],
  ['get-user-organization', 'GET', '/user/orgs/globex'],
  // An organization key has no user: 403, whatever the organization holds.
  ['get-current-user', 'POST', '/user/me', {}],
  ['parse-assets', 'POST', '/asset/parse', { text: `Is ${CONTENT[status]} safe?` }],
  ['get-scan-result', 'POST', '/scan/result', { scanId: 1 }],
  ['get-blocklist-version', 'GET', '/asset/blocklist/version'],
  [
    'confirm-blocklist-prefixes',
    'POST',
    '/asset/blocklist/confirm',
    { algoVersion: 1, prefixes: [prefixHex(prefixOf(fullHash(expressionsOf(suffixes, CONTENT[status])[0] ?? '')))] },
  ],
  ['get-public-metrics', 'POST', '/public/getOrganizationMetrics', { organizationSlug: 'globex' }],
  ['list-threats', 'POST', '/threats/list', { organizationSlug: 'globex' }],
  ['list-takedowns', 'POST', '/takedowns/list', { organizationSlug: 'globex' }],
  ['list-detections', 'POST', '/detection/list', { slug: 'globex' }],
];

const ownBefore = new Map<string, Answer>();
/** What Globex's records are made of, per status: ids, texts and times that must never reach Acme. */
const secrets = new Map<Status, Set<string>>();
const assetIds = new Map<Status, number>();
/** The report behind a block: `/asset/details` names it to everyone, as its public page shows it to anyone with its address. */
const blockingReports = new Map<Status, string>();

const collect = (into: Set<string>, ...values: unknown[]) => {
  for (const value of values) if (value !== undefined && value !== null && value !== '') into.add(String(value));
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme' },
      { slug: 'globex', name: 'Globex', featureFlags: ['takedowns'] },
    ],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
    ],
  });
  // Acme's webhook, whose (empty) delivery log is one of its own answers.
  await webhookRepository(table.db, table.tableName).create({
    id: ACME_WEBHOOK,
    orgId: 'acme',
    url: 'https://hooks.acme.example/',
    description: null,
    events: ['asset.status-updated'],
    headers: undefined,
    enabled: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    sealedSecret: 'sealed',
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;

  const listed = await call('GET', '/taxii2/api/collections/', ACME);
  const { collections } = listed.body as { collections: { id: string; title: string }[] };
  for (const { id, title } of collections) taxiiIds[title] = id;
  const objects = await call('GET', '/taxii2/api/collections/{blocked}/objects/', ACME);
  taxiiIds.object = (objects.body as { objects: { id: string }[] }).objects[0]?.id ?? '';
  const added = await call('POST', '/taxii2/api/collections/{submissions}/objects/', ACME, {
    objects: [{ type: 'malware', id: 'malware--0b6e2c1a-4d3f-4a5b-8c7d-9e0f1a2b3c4d' }],
  });
  taxiiIds.status = (added.body as { id: string }).id;

  for (const [, method, path, body] of ownCalls)
    ownBefore.set(`${method} ${path}`, await call(method, path, ACME, body));

  for (const status of STATUSES) {
    const found = new Set<string>();
    const created = await call('POST', '/report/create', GLOBEX, {
      title: `Globex ${status} report title`,
      description: `Globex ${status} report description`,
      contactInfo: `reporter-${status}@example.com`,
      externalReporter: {
        platform: 'discord',
        platformIdentifier: `reporter-${status}-id`,
        displayName: `reporter-${status}-bot`,
      },
      assets: [{ content: CONTENT[status] }],
    });
    expect(created.status).toBe(200);
    const report = created.body as { id: number; createdAt: string };
    collect(found, report.id, report.createdAt, `Globex ${status} report`, `reporter-${status}`);
    if (status === 'approved') blockingReports.set(status, String(report.id));
    const listed = await call('GET', '/organization/reports', GLOBEX);
    const entry = (
      listed.body as { reports: { id: number; proposals: { id: number; asset: { id: number } }[] }[] }
    ).reports.find((r) => r.id === report.id);
    const proposal = entry?.proposals[0];
    if (proposal === undefined) throw new Error(`Globex's ${status} report has no proposal`);
    assetIds.set(status, proposal.asset.id);
    collect(found, proposal.id);
    if (status !== 'pending') {
      const reviewed = await call('POST', `/organization/proposals/${proposal.id}/review`, GLOBEX, {
        assetId: proposal.asset.id,
        ...REVIEW[status],
      });
      expect(reviewed.status).toBe(200);
      const review = (reviewed.body as { review: { id: number; createdAt: string; comment: string | null } }).review;
      collect(found, review.id, review.createdAt, review.comment);
    }
    const after = await call('GET', '/organization/reports', GLOBEX);
    const stored = (after.body as { reports: { id: number; updatedAt: string }[] }).reports.find(
      (r) => r.id === report.id,
    );
    collect(found, stored?.updatedAt);
    secrets.set(status, found);
  }
  // The changelog hands out a change once no later commit can land before it: the approved block's.
  await eventually(
    async () => expect((await changelogChanges()).map((change) => change.content)).toContain(CONTENT.approved),
    { tries: 100, intervalMs: 100 },
  );
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Every page of an answer, as JSON text: a body listing is followed through its `next_page` to the end. */
const everyPage = async (method: string, path: string, body: unknown): Promise<string> => {
  const texts: string[] = [];
  let request = body;
  for (;;) {
    const answer = await call(method, path, ACME, request);
    texts.push(JSON.stringify(answer.body));
    const next = (answer.body as { next_page?: unknown }).next_page;
    if (method !== 'POST' || typeof next !== 'string') return texts.join('\n');
    request = { ...(body as object), next_page: next };
  }
};

/** Every verdict change the changelog hands out now, following its pages to the end. */
const changelogChanges = async (): Promise<{ content: string; changedAt: string }[]> => {
  const changes: { content: string; changedAt: string }[] = [];
  let next: unknown = null;
  do {
    const feed = await call('POST', '/asset/changelog', ACME, { type: 'URL', next_page: next });
    const page = feed.body as { changes: { content: string; changedAt: string }[]; next_page: string | null };
    changes.push(...page.changes);
    next = page.next_page;
  } while (next !== null);
  return changes;
};

/** The verdicts' change times: the changelog publishes them, so they are the service's, not Globex's to hide. */
const publicVerdictTimes = async (): Promise<Set<string>> =>
  new Set((await changelogChanges()).map((change) => change.changedAt));

describe('another organization’s reports, proposals and reviews', () => {
  it('covers every route that reads the table without writing', () => {
    const covered = new Set([...ownCalls, ...lookupCalls('pending', 1)].map(([route]) => route));
    const readRoutes = ROUTES.filter((route) => route.access === 'read' && !route.public).map((route) => route.name);

    expect(readRoutes.filter((name) => !covered.has(name))).toEqual([]);
  });

  it('leave every answer about Acme’s own records and figures unchanged', async () => {
    for (const [, method, path, body] of ownCalls) {
      const now = await call(method, path, ACME, body);

      expect({ path, ...now }).toEqual({ path, ...ownBefore.get(`${method} ${path}`) });
    }
  });

  it.each(STATUSES)('never show their ids, texts or times to another organization when %s', async (status) => {
    const verdictTimes = await publicVerdictTimes();
    const hidden = [...(secrets.get(status) ?? [])].filter(
      (secret) => !verdictTimes.has(secret) && secret !== blockingReports.get(status),
    );
    const leaks: string[] = [];

    let mentions = 0;

    for (const [route, method, path, body] of [...lookupCalls(status, assetIds.get(status) ?? 0), ...ownCalls]) {
      const text = await everyPage(method, path, body);
      if (text.includes(CONTENT[status])) mentions++;
      for (const secret of hidden) if (text.includes(secret)) leaks.push(`${route} ${path}: ${secret}`);
    }

    expect(hidden.length).toBeGreaterThan(3);
    expect(leaks).toEqual([]);
    // The calls reach the content (the search by content and by id at least), so a leak would show.
    expect(mentions).toBeGreaterThanOrEqual(2);
  });

  it('answer the asset of a content only another organization reported, with no times it could date', async () => {
    const pending = await call('POST', '/asset/search', ACME, { content: CONTENT.pending });
    const rejected = await call('POST', '/asset/search', ACME, { content: CONTENT.rejected });

    for (const [status, answer] of [
      ['pending', pending],
      ['rejected', rejected],
    ] as const) {
      expect(answer).toEqual({
        status: 200,
        body: {
          asset: {
            id: assetIds.get(status),
            content: CONTENT[status],
            type: 'URL',
            status: 'UNKNOWN',
            watchStatus: 'DISABLED',
            createdAt: null,
            updatedAt: null,
          },
          reports: [],
          takedown: null,
          blockedBy: [],
        },
      });
    }
  });
});
