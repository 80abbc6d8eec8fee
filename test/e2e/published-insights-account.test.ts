import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { createGateway, matchRoute } from '../../infra/local/gateway.ts';
import { BASE_PATHS } from '../../infra/routes.ts';
import { recordNumber } from '../../shared/domain/core/ids.ts';
import { assertDocumented } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

/*
 * The published contracts of the healthchecks, the queue snapshot, the detection sources, the
 * asset-group delete and the caller's organizations, through the local gateway under both base
 * paths, every answer held to the API description. Ages are relative to the clock of the run.
 */
const table = await createTestTable('e2e-published-insights-account');
const ACME = 'acme-published-key-0123456789abcdef';
const MEMBER = 'member-published-key-0123456789abcdef';
const DAY = 86_400_000;
const server = createGateway();
let host = '';

const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
/** 25 pending proposals and 25 IN_PROGRESS takedowns 8 to 32 days old, and younger or other ones beside them. */
const OLD = [...Array(25).keys()].map((i) => ({ index: i, createdAt: daysAgo(8 + i) }));
const report = (id: number, createdAt: string) => ({
  organization: 'acme',
  kind: 'report',
  id: String(id),
  createdAt,
  proposals: [
    { id: id + 5000, assetId: id + 9000, content: `scam-${id}.example`, type: 'URL', reviewStatus: 'PENDING' },
  ],
});
const takedown = (id: string, status: string, createdAt: string) => ({
  organization: 'acme',
  kind: 'takedown',
  id,
  status,
  createdAt,
  updatedAt: createdAt,
});

const ACME_RECORD = {
  avatarUrl: 'https://cdn.acme.example/acme.png',
  subscriptionStatus: 'ACTIVE',
  obligatoryAdminApproval: true,
  services: { takedowns: { active: true, automated: true }, darkWebMonitoring: { active: true } },
  integrations: { slack: true, telegram: { connected: true, groupCount: 2 } },
  legalDocuments: { letterOfAuthorization: { fileName: 'loa.pdf', fileUrl: 'https://cdn.acme.example/loa.pdf' } },
  trademarkRegistrations: [{ issuingOffice: 'USPTO', registrationNumber: '1234567' }],
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme Protocol', ...ACME_RECORD },
      { slug: 'beta', name: 'Beta Labs', subscriptionStatus: 'POC' },
      { slug: 'gamma', name: 'Gamma', subscriptionStatus: 'INACTIVE' },
      { slug: 'delta', name: 'Delta', subscriptionStatus: 'PROSPECT', services: { takedowns: { active: true } } },
    ],
    users: [
      {
        id: 'u-published',
        memberships: ['acme', 'beta', 'gamma', 'delta'].map((organization) => ({ organization, status: 'ACTIVE' })),
      },
    ],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: MEMBER, user: 'u-published' },
    ],
    groups: [
      { organization: 'acme', name: 'Kept' },
      { organization: 'acme', name: 'Doomed' },
    ],
    activity: [
      ...OLD.map(({ index, createdAt }) => report(100 + index, createdAt)),
      report(200, daysAgo(1)),
      ...OLD.map(({ index, createdAt }) => takedown(`td-${index}`, 'IN_PROGRESS', createdAt)),
      takedown('td-young', 'IN_PROGRESS', daysAgo(2)),
      takedown('td-todo', 'TODO', daysAgo(40)),
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Body = Record<string, unknown> & { [key: string]: never };
const call = async (base: string, method: string, path: string, body?: unknown, key = ACME) => {
  const response = await fetch(`${host}${base}${path}`, {
    method,
    headers: { 'X-API-KEY': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  const match = matchRoute(method, path.split('?')[0] as string);
  if (match) assertDocumented(match.route, response.status, parsed, (name) => response.headers.get(name));
  return { status: response.status, body: parsed as Body };
};
const errorOf = (code: string, message: string) => ({
  code,
  message,
  error: { code, message },
  requestId: expect.any(String),
});

type Finding = { id: number; kind: string; createdAt: string; ageSeconds: number };

describe.each(BASE_PATHS)('the healthchecks under %s', (base) => {
  it('list the 20 oldest pending proposals as the findings of reviewing.old-proposals, oldest first', async () => {
    const before = Date.now();
    const response = await call(base, 'POST', '/healthchecks/reviewing/old-proposals', {});
    const after = Date.now();
    const findings = response.body.findings as unknown as Finding[];

    expect(response.body).toMatchObject({ id: 'reviewing.old-proposals', severity: 'fail', observed: 32 });
    expect(findings.map(({ id, kind, createdAt }) => ({ id, kind, createdAt }))).toEqual(
      OLD.slice(5)
        .reverse()
        .map(({ index, createdAt }) => ({ id: 5100 + index, kind: 'proposal', createdAt })),
    );
    // The age is taken by the service's clock while it answers, somewhere between the two readings.
    for (const finding of findings) {
      const ageAt = (at: number) => Math.floor((at - Date.parse(finding.createdAt)) / 1000);
      expect(finding.ageSeconds).toBeGreaterThanOrEqual(ageAt(before));
      expect(finding.ageSeconds).toBeLessThanOrEqual(ageAt(after));
    }
  });

  it('list the 20 oldest IN_PROGRESS takedowns on takedowns.stale-in-progress, without TODO or young ones', async () => {
    const response = await call(base, 'POST', '/healthchecks/takedowns/stale-in-progress', {});
    const findings = response.body.findings as unknown as Finding[];

    expect(response.body).toMatchObject({
      id: 'takedowns.stale-in-progress',
      severity: 'fail',
      suggestedAction: expect.stringContaining('IN_PROGRESS'),
    });
    expect(findings.map(({ id, kind, createdAt }) => ({ id, kind, createdAt }))).toEqual(
      OLD.slice(5)
        .reverse()
        .map(({ index, createdAt }) => ({
          id: recordNumber('takedown', 'acme', `td-${index}`),
          kind: 'takedown',
          createdAt,
        })),
    );
  });

  it('keep the earlier names beside the published ones, and list no findings on a volume check', async () => {
    const response = await call(base, 'POST', '/healthchecks/takedowns/in-progress-volume', {});

    expect(response.body).toEqual({
      id: 'takedowns.in-progress-volume',
      severity: 'ok',
      observed: 26,
      threshold: { warn: 50, fail: 200 },
      findings: [],
      suggestedAction: 'None: the check is ok.',
      key: 'takedowns.in-progress-volume',
      status: 'ok',
      value: 26,
      detail: '26 takedowns are IN_PROGRESS',
    });
  });

  it('register every check with a path each implemented one answers at, and the planned ones with a reason', async () => {
    const registry = await call(base, 'POST', '/healthchecks/list', {});
    const checks = registry.body.checks as unknown as {
      id: string;
      path: string;
      implemented: boolean;
      notImplementedReason?: string;
    }[];
    const answers = await Promise.all(
      checks.filter((entry) => entry.implemented).map((entry) => call(base, 'POST', entry.path, {})),
    );

    expect(checks.filter((entry) => entry.implemented)).toHaveLength(10);
    expect(answers.map((answer) => [answer.status, answer.body.id])).toEqual(
      checks.filter((entry) => entry.implemented).map((entry) => [200, entry.id]),
    );
    expect(checks.filter((entry) => !entry.implemented).length).toBeGreaterThan(0);
    for (const entry of checks) {
      expect(entry.path).toBe(`/healthchecks/${entry.id.replace('.', '/')}`);
      expect(typeof entry.notImplementedReason === 'string').toBe(!entry.implemented);
    }
  });
});

describe.each(BASE_PATHS)('POST %s/operations/queues/snapshot', (base) => {
  type Queue = { name: string; size: number; buckets: { label: string; count: number }[]; staleCount: number };

  it('puts every waiting item in one age bucket, and counts what waited the window or longer', async () => {
    const response = await call(base, 'POST', '/operations/queues/snapshot', { windowHours: 30 * 24 });
    const queues = response.body.queues as unknown as Queue[];

    expect(response.body.windowHours).toBe(720);
    expect(queues.map(({ name, size, buckets, staleCount }) => ({ name, size, buckets, staleCount }))).toEqual([
      {
        name: 'review',
        size: 26,
        buckets: [
          { label: '<1d', count: 0 },
          { label: '1-3d', count: 1 },
          { label: '3-7d', count: 0 },
          { label: '7-14d', count: 6 },
          { label: '>14d', count: 19 },
        ],
        // 30 to 32 days old.
        staleCount: 3,
      },
      {
        name: 'takedown',
        size: 27,
        buckets: [
          { label: '<1d', count: 0 },
          { label: '1-3d', count: 1 },
          { label: '3-7d', count: 0 },
          { label: '7-14d', count: 6 },
          { label: '>14d', count: 20 },
        ],
        staleCount: 4,
      },
    ]);
  });

  it('returns 400 naming windowHours for a window that is not a whole number of hours up to a year', async () => {
    const response = await call(base, 'POST', '/operations/queues/snapshot', { windowHours: -1 });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      ...errorOf('BAD_REQUEST', 'windowHours must be an integer between 1 and 8760'),
      issues: [{ path: 'body.windowHours' }],
    });
  });
});

describe.each(BASE_PATHS)('GET %s/detection/sources', (base) => {
  it('says the scopes of every source', async () => {
    const response = await call(base, 'GET', '/detection/sources');
    const sources = response.body.sources as unknown as { key: string; scopes: string[] }[];

    expect(sources.map(({ key, scopes }) => [key, scopes])).toEqual([
      ['DNS_TWIST', ['organization']],
      ['CERTSTREAM', ['organization']],
      ['ASSET_CHECK', ['organization']],
      ['EXTERNAL', ['organization']],
    ]);
  });
});

describe('DELETE /organization/asset-groups/{groupId}', () => {
  const groups = async () =>
    ((await call('/v2', 'GET', '/organization/asset-groups')).body.groups as unknown as { name: string }[]).map(
      (group) => group.name,
    );

  it.each(BASE_PATHS)('returns 400 under %s to a body naming another group, and deletes nothing', async (base) => {
    const response = await call(base, 'DELETE', '/organization/asset-groups/1', { groupId: 2 });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject(errorOf('BAD_REQUEST', 'Path parameter groupId does not match body'));
    expect(await groups()).toEqual(['Kept', 'Doomed']);
  });

  it.each(BASE_PATHS)('answers a malformed id under %s with the published "Invalid group ID"', async (base) => {
    const responses = await Promise.all(
      ['abc', '0', '-2', '1.5'].map((id) => call(base, 'DELETE', `/organization/asset-groups/${id}`, { groupId: 1 })),
    );

    for (const response of responses) {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject(errorOf('BAD_REQUEST', 'Invalid group ID'));
    }
  });

  it('deletes the group when the body names the same id', async () => {
    const response = await call('/api/v2', 'DELETE', '/organization/asset-groups/2', { groupId: 2 });

    expect(response).toEqual({ status: 200, body: { success: true, id: 2, unassignedAssetCount: 0 } });
    expect(await groups()).toEqual(['Kept']);
  });
});

describe.each(BASE_PATHS)('the caller’s organizations under %s', (base) => {
  const ACME_VIEW = {
    id: expect.any(Number),
    name: 'Acme Protocol',
    slug: 'acme',
    avatarUrl: 'https://cdn.acme.example/acme.png',
    subscriptionStatus: 'ACTIVE',
    services: {
      reporting: { active: true },
      reviewing: { active: true },
      protection: { active: true },
      takedowns: { active: true, automated: true },
      detection: { active: false },
      darkWebMonitoring: { active: true },
    },
    obligatoryAdminApproval: true,
    integrations: {
      slack: true,
      discord: false,
      telegram: { connected: true, groupCount: 2 },
      vercel: false,
      intercom: false,
      moderation: false,
    },
    legalDocuments: {
      letterOfAuthorization: { present: true, fileName: 'loa.pdf', fileUrl: 'https://cdn.acme.example/loa.pdf' },
      powerOfAttorney: { present: false, fileName: null, fileUrl: null },
    },
    trademarkRegistrations: [{ issuingOffice: 'USPTO', registrationNumber: '1234567', certificateUrl: null }],
    role: 'MEMBER',
  };
  const slugs = async (filters: unknown) => {
    const response = await call(base, 'POST', '/user/orgs', filters, MEMBER);
    return (response.body.organizations as unknown as { slug: string }[]).map((entry) => entry.slug).sort();
  };

  it('answers every published field from the organization’s record, in the list and alone', async () => {
    const list = await call(base, 'POST', '/user/orgs', {}, MEMBER);
    const one = await call(base, 'GET', '/user/orgs/acme', undefined, MEMBER);
    const own = await call(base, 'POST', '/user/orgs', {}, ACME);

    expect((list.body.organizations as unknown as { slug: string }[]).find((entry) => entry.slug === 'acme')).toEqual(
      ACME_VIEW,
    );
    expect(one.body).toEqual(ACME_VIEW);
    expect(own.body).toEqual({ organizations: [{ ...ACME_VIEW, role: 'ORGANIZATION' }] });
  });

  it('answers an INACTIVE organization of the caller alone, though the list leaves it out', async () => {
    const response = await call(base, 'GET', '/user/orgs/gamma', undefined, MEMBER);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ slug: 'gamma', subscriptionStatus: 'INACTIVE' });
  });

  it('never lists an INACTIVE organization, and ANDs the filters', async () => {
    expect(await slugs({})).toEqual(['acme', 'beta', 'delta']);
    expect(await slugs({ subscriptionStatus: ['POC', 'PROSPECT'] })).toEqual(['beta', 'delta']);
    expect(await slugs({ services: ['takedowns'] })).toEqual(['acme', 'delta']);
    expect(await slugs({ services: { takedowns: { active: true, automated: false } } })).toEqual(['delta']);
    expect(await slugs({ services: { darkWebMonitoring: { active: false } } })).toEqual(['beta', 'delta']);
    expect(await slugs({ obligatoryAdminApproval: true })).toEqual(['acme']);
    expect(await slugs({ query: 'LABS' })).toEqual(['beta']);
    expect(await slugs({ query: 'a', subscriptionStatus: ['ACTIVE', 'POC'], obligatoryAdminApproval: false })).toEqual([
      'beta',
    ]);
  });

  it.each([
    [{ subscriptionStatus: ['INACTIVE'] }, 'subscriptionStatus'],
    [{ subscriptionStatus: 'ACTIVE' }, 'subscriptionStatus'],
    [{ subscriptionStatus: [] }, 'subscriptionStatus'],
    [{ services: ['email'] }, 'services'],
    [{ services: { reporting: { automated: true } } }, 'services'],
    [{ services: 'takedowns' }, 'services'],
    [{ obligatoryAdminApproval: 'yes' }, 'obligatoryAdminApproval'],
    [{ query: '' }, 'query'],
    [{ query: 'q'.repeat(257) }, 'query'],
  ])('returns 400 naming the field for the filter %j', async (filters, field) => {
    const response = await call(base, 'POST', '/user/orgs', filters, MEMBER);

    expect(response.status).toBe(400);
    const issues = response.body.issues as unknown as { path: string }[];
    expect(issues.map((issue) => issue.path.split('.').slice(0, 2).join('.'))).toEqual([`body.${field}`]);
  });
});

describe('the operator’s org settings', () => {
  it('set the published fields that /user/orgs answers', async () => {
    await runAdminCommand(
      table.db,
      table.tableName,
      [
        'org',
        'settings',
        'beta',
        JSON.stringify({
          integrations: { discord: true, telegram: { connected: false } },
          legalDocuments: { powerOfAttorney: { fileName: 'poa.pdf', fileUrl: 'https://cdn.beta.example/poa.pdf' } },
        }),
      ],
      {},
    );

    const response = await call('/v2', 'GET', '/user/orgs/beta', undefined, MEMBER);

    expect(response.body).toMatchObject({
      subscriptionStatus: 'POC',
      integrations: { discord: true, telegram: { connected: false, groupCount: 0 } },
      legalDocuments: {
        powerOfAttorney: { present: true, fileName: 'poa.pdf', fileUrl: 'https://cdn.beta.example/poa.pdf' },
      },
    });
  });

  it('refuse a value of the wrong kind, naming it', async () => {
    const refused = runAdminCommand(
      table.db,
      table.tableName,
      ['org', 'settings', 'beta', JSON.stringify({ subscriptionStatus: 'GOLD' })],
      {},
    );

    await expect(refused).rejects.toThrow(/subscriptionStatus/);
  });
});
