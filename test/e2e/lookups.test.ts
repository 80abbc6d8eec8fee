import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { loadRoutes, type RouteDeclaration } from '../../infra/openapi/document.ts';
import { eventually } from '../fixtures/eventually.ts';
import { fieldsOf } from '../fixtures/schema-fields.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-lookups');
const ACME = 'acme-lookups-key-0123456789abcdef';
const server = createGateway();
let base = '';
let routes: RouteDeclaration[] = [];

process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
process.env.WEBHOOK_SECRETS_KEY_FILE = join(mkdtempSync(join(tmpdir(), 'lookups-')), 'webhook-secrets.key');
const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': ACME },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** The least each listing needs besides its cursor. */
const REQUIRED: Record<string, Record<string, unknown>> = {
  'list-verdicts': { type: 'URL' },
  'list-detections': { slug: 'acme' },
};
const CURSOR_FIELDS = ['next_page', 'cursor'];

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme', featureFlags: ['takedowns'] },
      { slug: 'globex', name: 'Globex' },
    ],
    apiKeys: [{ key: ACME, organization: 'acme' }],
    assets: [{ organization: 'globex', content: 'globex-wallet.example', type: 'URL', name: 'Globex wallet' }],
    activity: [
      {
        organization: 'globex',
        kind: 'threat',
        id: 't-ingested-pending',
        content: 'ingested-pending.xyz',
        assetType: 'URL',
        status: 'PENDING',
        createdAt: '2026-01-06T10:00:00Z',
      },
      {
        organization: 'acme',
        kind: 'takedown',
        id: 'td-lookups',
        threatId: 't-lookups',
        content: 'lookups-phish.xyz',
        assetType: 'URL',
        status: 'FILED',
        createdAt: '2026-01-07T10:00:00Z',
      },
      {
        organization: 'acme',
        kind: 'threat',
        id: 't-lookups',
        content: 'lookups-phish.xyz',
        assetType: 'URL',
        status: 'BLOCKED',
        createdAt: '2026-01-05T10:00:00Z',
      },
    ],
  });
  routes = await loadRoutes();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Each route with an optional cursor, where it takes it and the cursor's name. */
const cursorRoutes = () =>
  routes.flatMap(({ route, request }) =>
    (['body', 'queryStringParameters'] as const).flatMap((part) =>
      Object.keys(fieldsOf(request[part]))
        .filter((field) => CURSOR_FIELDS.includes(field))
        .map((field) => ({ route, part, field })),
    ),
  );

describe('a null cursor', () => {
  it('is found on every listing', () => {
    expect(cursorRoutes().map(({ route, field }) => `${route.name}.${field}`)).toEqual(
      expect.arrayContaining([
        'list-assets.next_page',
        'list-verdicts.next_page',
        'get-changelog.next_page',
        'list-reports.cursor',
        'list-threats.next_page',
        'list-takedowns.next_page',
      ]),
    );
  });

  it('asks for the first page on every listing, as no cursor does', async () => {
    // The seeded changes settle first, so both calls of the changelog read the same log.
    await seededChangesSettled();
    const hook = await call('POST', '/webhook/config', {
      url: 'http://127.0.0.1:9/hook',
      events: ['asset.status-updated'],
    });
    // A listing under one record names it in its path: the webhook just created.
    const pathOf = (path: string) => path.replace('{id}', String(hook.body.id));
    for (const { route, part, field } of cursorRoutes()) {
      const first =
        part === 'body'
          ? await call(route.method, pathOf(route.path), { ...REQUIRED[route.name] })
          : await call(route.method, pathOf(route.path));
      const withNull =
        part === 'body'
          ? await call(route.method, pathOf(route.path), { ...REQUIRED[route.name], [field]: null })
          : await call(route.method, `${pathOf(route.path)}?${field}=null`);

      expect({ route: route.name, status: first.status }).toEqual({ route: route.name, status: 200 });
      // The changelog's version is the end of what the page covers: now, less the settle window, or
      // (with `next_page`) further on the second call, once the container knows the quiet days of the first.
      const ends = route.name === 'get-changelog' ? ['version', 'next_page'] : ['version'];
      const covered = (body: unknown) =>
        Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([name]) => !ends.includes(name)));
      const [firstBody, withNullBody] = [covered(first.body), covered(withNull.body)];
      expect({ route: route.name, status: withNull.status, body: withNullBody }).toEqual({
        route: route.name,
        status: 200,
        body: firstBody,
      });
    }
  });

  it('is what the documented asset list loop sends on its first request', async () => {
    const response = await call('POST', '/asset/list', {
      type: 'URL',
      status: 'BLOCKED',
      per_page: 500,
      next_page: null,
    });

    expect(response.status).toBe(200);
    expect(response.body.next_page).toBeNull();
  });
});

/** Every change the changelog hands out from a first body, following `next_page` to the end. */
const changelog = async (first: Record<string, unknown>) => {
  const changes: unknown[] = [];
  let body: Record<string, unknown> = first;
  for (;;) {
    const page = await call('POST', '/asset/changelog', body);
    expect(page.status).toBe(200);
    changes.push(...(page.body.changes as unknown[]));
    if (page.body.next_page === null) return changes;
    body = { ...first, next_page: page.body.next_page };
  }
};

/** Waits until the changelog hands out both seeded verdict changes (once no later commit can land before them). */
const seededChangesSettled = () =>
  eventually(async () => expect(await changelog({ type: 'URL' })).toHaveLength(2), { tries: 100, intervalMs: 100 });

describe('POST /asset/changelog', () => {
  it('answers from the oldest kept change when the body holds only a type', async () => {
    await seededChangesSettled();

    const typeOnly = await changelog({ type: 'URL' });
    const empty = await changelog({});
    const nulls = await changelog({ since: null, type: 'URL', next_page: null });

    expect(typeOnly).toEqual([
      {
        content: 'globex-wallet.example',
        type: 'URL',
        status: 'ALLOWED',
        watchStatus: 'DISABLED',
        changedAt: expect.any(String),
        version: expect.any(String),
      },
      {
        content: 'lookups-phish.xyz',
        type: 'URL',
        status: 'BLOCKED',
        watchStatus: 'DISABLED',
        changedAt: expect.any(String),
        version: expect.any(String),
      },
    ]);
    expect(empty).toEqual(typeOnly);
    expect(nulls).toEqual(typeOnly);
  });

  it('still refuses a since that is not a version', async () => {
    const response = await call('POST', '/asset/changelog', { since: 'yesterday' });

    expect(response.status).toBe(400);
    expect(response.body.message).toBe(
      'since must be a version from GET /asset/blocklist/version or POST /asset/changelog',
    );
  });
});

describe('POST /asset/search', () => {
  const search = async (body: unknown) => (await call('POST', '/asset/search', body)).body;
  const asset = (content: string, status: string, times: 'dated' | 'undated') => ({
    id: expect.any(Number),
    content,
    type: 'URL',
    status,
    watchStatus: 'DISABLED',
    createdAt: times === 'dated' ? expect.any(String) : null,
    updatedAt: times === 'dated' ? expect.any(String) : null,
  });

  it('answers the asset another organization allowlists, dated by its public verdict', async () => {
    expect(await search({ content: 'globex-wallet.example' })).toEqual({
      asset: asset('globex-wallet.example', 'ALLOWED', 'dated'),
      reports: [],
      takedown: null,
      blockedBy: [],
    });
  });

  it('answers the asset an external list blocks, with no consumer of a block the service itself does not hand out', async () => {
    expect(await search({ content: 'azukishop.live' })).toEqual({
      asset: { ...asset('azukishop.live', 'BLOCKED', 'undated'), id: expect.any(Number) },
      reports: [],
      takedown: null,
      blockedBy: [],
    });
  });

  it('answers the asset of an ingested threat still pending in another organization', async () => {
    expect(await search({ content: 'ingested-pending.xyz' })).toEqual({
      asset: asset('ingested-pending.xyz', 'UNKNOWN', 'undated'),
      reports: [],
      takedown: null,
      blockedBy: [],
    });
  });

  it('answers the caller’s takedown with its tasks, the report behind the block, and prefix sync as its consumer', async () => {
    const blocked = await search({ content: 'lookups-phish.xyz' });

    expect(blocked).toEqual({
      asset: asset('lookups-phish.xyz', 'BLOCKED', 'dated'),
      reports: [
        {
          id: expect.any(Number),
          title: 'Blocked: lookups-phish.xyz',
          status: 'CLOSED',
          createdAt: '2026-01-05T10:00:00.000Z',
        },
      ],
      takedown: {
        id: expect.anything(),
        status: expect.any(String),
        createdAt: '2026-01-07T10:00:00.000Z',
        updatedAt: '2026-01-07T10:00:00.000Z',
        tasks: [],
      },
      blockedBy: [{ consumer: 'blocklist', name: 'Prefix sync', consumedAt: expect.any(String) }],
    });
    // Prefix sync took the block when the change that made it was recorded: the verdict's change in the changelog.
    const changes = (await changelog({ type: 'URL' })) as { content: string; changedAt: string }[];
    const change = changes.find((entry) => entry.content === 'lookups-phish.xyz');
    expect((blocked.blockedBy as { consumedAt: string }[])[0]?.consumedAt).toBe(change?.changedAt);
  });

  it('answers no asset for content nothing knows', async () => {
    expect(await search({ content: 'nobody-knows-this.example' })).toEqual({
      asset: null,
      reports: [],
      takedown: null,
      blockedBy: [],
    });
  });
});
