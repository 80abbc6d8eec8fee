import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { recordNumber } from '../../shared/domain/core/ids.ts';
import { assetIdOf } from '../../shared/domain/lifecycle/reports.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-numeric-ids');
const ACME = 'numeric-ids-acme-key-0123456789abcdef';
const server = createGateway();
let base = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'acme', name: 'Acme' }],
    apiKeys: [{ key: ACME, organization: 'acme' }],
    activity: [
      {
        organization: 'acme',
        kind: 'report',
        id: 'demo-r-77',
        title: 'Ingested report',
        status: 'CLOSED',
        createdAt: '2026-03-01T10:00:00Z',
      },
      {
        organization: 'acme',
        kind: 'threat',
        id: 'demo-t-77',
        reportId: 'demo-r-77',
        assetId: assetIdOf(entryKeyOf(suffixes, 'ingested-drainer.example', 'URL') as string),
        content: 'ingested-drainer.example',
        assetType: 'URL',
        status: 'BLOCKED',
        createdAt: '2026-03-01T10:05:00Z',
      },
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': ACME },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return JSON.parse(await response.text());
};

describe('ids of records an ingest or a fixture keyed by text', () => {
  it('answer as numbers everywhere, with the text kept as externalId', async () => {
    const created = await call('POST', '/report/create', {
      title: 'Reported through the API',
      description: '',
      assets: [{ content: 'api-drainer.example' }],
    });
    const reports = await call('GET', '/organization/reports');
    const threats = await call('POST', '/threats/list', { startDate: '2026-01-01', endDate: '2026-12-31' });
    const details = await call('POST', '/asset/details', { content: 'ingested-drainer.example' });

    const reportId = recordNumber('report', 'acme', 'demo-r-77');
    expect(reports.reports.map((r: { id: unknown; externalId: unknown }) => [r.id, r.externalId])).toEqual([
      [created.id, null],
      [reportId, 'demo-r-77'],
    ]);
    expect(threats.threats).toEqual([
      {
        id: recordNumber('threat', 'acme', 'demo-t-77'),
        externalId: 'demo-t-77',
        content: 'ingested-drainer.example',
        type: 'URL',
        blockedAt: '2026-03-01T10:05:00.000Z',
      },
    ]);
    expect(details).toMatchObject({ status: 'BLOCKED', reason: 'report', reportId });
  });
});
