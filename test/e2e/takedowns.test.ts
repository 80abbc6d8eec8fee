import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { assetIdOf, recordNumber } from '../../shared/domain/core/ids.ts';
import { brandIdOf } from '../../shared/domain/lifecycle/reviews.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-takedowns');
const ACME = 'takedowns-acme-key-0123456789abcdef';
const GLOBEX = 'takedowns-globex-key-0123456789abcdef';
const MEMBER = 'takedowns-member-key-0123456789abcdef';
const server = createGateway();
let base = '';

const takedown = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  organization: 'acme',
  kind: 'takedown',
  id,
  status,
  brands: ['acme-wallet'],
  content: `https://${id}.example/login`,
  assetType: 'URL',
  createdAt: '2026-03-01T10:00:00Z',
  ...extra,
});

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme', brands: [{ slug: 'acme-wallet', name: 'Acme Wallet' }] },
      { slug: 'globex', name: 'Globex' },
    ],
    users: [
      {
        id: 'analyst',
        memberships: [
          { organization: 'acme', status: 'ACTIVE' },
          { organization: 'globex', status: 'INACTIVE' },
        ],
      },
    ],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
      { key: MEMBER, user: 'analyst' },
    ],
    activity: [
      takedown('td-filed', 'FILED', { updatedAt: '2026-03-01T11:00:00Z', livenessStatus: 'ALIVE' }),
      takedown('td-working', 'IN_PROGRESS', {
        updatedAt: '2026-03-01T12:00:00Z',
        livenessStatus: 'ALIVE',
        assignee: { id: 7, fullName: 'Dana Analyst' },
      }),
      takedown('td-dead', 'IN_PROGRESS', { updatedAt: '2026-03-01T13:00:00Z', livenessStatus: 'DEAD' }),
      takedown('td-failed', 'FAILED', { updatedAt: '2026-03-01T14:00:00Z' }),
      takedown('td-waiting', 'PENDING_INPUT', { updatedAt: '2026-03-01T15:00:00Z' }),
      takedown('td-done', 'COMPLETED', { updatedAt: '2026-03-01T16:00:00Z' }),
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (path: string, key: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: JSON.parse(await response.text()) };
};

const BRAND = { id: brandIdOf({ orgId: 'acme', slug: 'acme-wallet' }), name: 'Acme Wallet', slug: 'acme-wallet' };
const item = (id: string, status: string, updatedAt: string, livenessStatus: string, assignee: unknown = null) => ({
  id: recordNumber('takedown', 'acme', id),
  externalId: id,
  status,
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt,
  // An ingested takedown with no asset id answers the service's id for its content.
  asset: {
    id: assetIdOf(entryKeyOf(suffixes, `https://${id}.example/login`, 'URL') ?? ''),
    content: `https://${id}.example/login`,
    type: 'URL',
    livenessStatus,
  },
  assignee,
  brand: BRAND,
});

describe('POST /takedowns/list through the local gateway', () => {
  it('answers the published example body with the live TODO and IN_PROGRESS takedowns in the published shape', async () => {
    const response = await call('/takedowns/list', ACME, {
      per_page: 100,
      next_page: null,
      takedownStatus: ['TODO', 'IN_PROGRESS'],
      livenessStatus: ['ALIVE'],
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      takedowns: [
        item('td-working', 'IN_PROGRESS', '2026-03-01T12:00:00.000Z', 'ALIVE', { id: 7, fullName: 'Dana Analyst' }),
        item('td-filed', 'TODO', '2026-03-01T11:00:00.000Z', 'ALIVE'),
      ],
      next_page: null,
    });
  });

  it('speaks only the published statuses, an ingested FAILED answering as CANCELLED, and counts a missing liveness as UNKNOWN', async () => {
    const all = await call('/takedowns/list', ACME, { per_page: 100 });
    const unknown = await call('/takedowns/list', ACME, { livenessStatus: ['UNKNOWN'] });

    expect(all.body.takedowns.map((t: { status: string }) => t.status)).toEqual([
      'COMPLETED',
      'PENDING_INPUT',
      'CANCELLED',
      'IN_PROGRESS',
      'IN_PROGRESS',
      'TODO',
    ]);
    expect(unknown.body.takedowns.map((t: { externalId: string }) => t.externalId)).toEqual([
      'td-done',
      'td-waiting',
      'td-failed',
    ]);
  });

  it('answers 400 for a status outside the published vocabulary', async () => {
    const response = await call('/takedowns/list', ACME, { takedownStatus: ['FILED'] });

    expect(response.status).toBe(400);
    expect(response.body.message).toBe(
      'takedownStatus holds only TODO, IN_PROGRESS, PENDING_INPUT, COMPLETED, CANCELLED',
    );
  });

  it('answers 403 to an organization key naming another organization', async () => {
    const response = await call('/takedowns/list', GLOBEX, { organizationSlug: 'acme' });

    expect(response.status).toBe(403);
    expect(response.body.message).toBe('You do not have permission to access takedowns for this organization');
  });

  it('serves a user key for an organization where it is an ACTIVE member, and 403 elsewhere', async () => {
    const active = await call('/takedowns/list', MEMBER, { organizationSlug: 'acme', per_page: 1 });
    const inactive = await call('/takedowns/list', MEMBER, { organizationSlug: 'globex' });

    expect(active.status).toBe(200);
    expect(active.body.takedowns).toEqual([item('td-done', 'COMPLETED', '2026-03-01T16:00:00.000Z', 'UNKNOWN')]);
    expect(inactive.status).toBe(403);
    expect(inactive.body.message).toBe('You do not have permission to access takedowns for this organization');
  });
});
