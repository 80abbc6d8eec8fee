import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { lifecycleRepository } from '../../shared/db/lifecycle-repository.ts';
import type { CheckResult } from '../../shared/domain/check/types.ts';
import { type PipelineDeps, processCandidates } from '../../shared/domain/detections/index.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import type { ReportDeps } from '../../shared/domain/lifecycle/reports.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('detections-store');
await seed(table.db, table.tableName, {
  organizations: [{ slug: 'acme', name: 'Acme', brands: [{ slug: 'acme-wallet', name: 'Acme Wallet' }] }],
  assets: [{ organization: 'acme', content: 'https://acme.com', type: 'URL', createdAt: '2026-01-02T03:04:05Z' }],
});

const store = detectionRepository(table.db, table.tableName);
const verdicts: Record<string, CheckResult['status']> = { 'acme-allowed.com': 'ALLOWED', 'acme-known.xyz': 'BLOCKED' };
const deps: PipelineDeps = {
  store,
  directory: directoryRepository(table.db, table.tableName),
  assets: assetRepository(table.db, table.tableName),
  checker: { check: (content) => ({ status: verdicts[content] ?? 'UNKNOWN', source: 'service', sources: [] }) },
  // Auto-reporting is off for this organization: no report is ever filed here.
  reports: {} as ReportDeps,
  suffixes,
  lists: lifecycleRepository(table.db, table.tableName),
  resolver: { registered: async () => false },
  certificates: { read: async () => ({ names: [], positions: {} }) },
  resolverConcurrency: 1,
};
const run = { orgId: 'acme', source: 'CERTSTREAM' as const, configId: 1, brandId: null };
const CANDIDATES = ['acme-login.xyz', 'acme-airdrop.app', 'acme-allowed.com', 'acme-known.xyz', 'bluecloud.com'].map(
  (content) => ({ content, reason: 'test' }),
);

describe('detections in DynamoDB Local', () => {
  it('records one detection per asset and source under eight concurrent runs of the same candidates, skipping allowlisted and unscored content', async () => {
    const runs = await Promise.all(
      Array.from({ length: 8 }, () => processCandidates(deps, run, CANDIDATES, Date.now())),
    );
    const listed = await store.listDetections('acme', undefined, 100);

    expect(
      runs
        .flat()
        .map((d) => d.threatContent)
        .sort(),
    ).toEqual(['acme-airdrop.app', 'acme-known.xyz', 'acme-login.xyz']);
    expect(listed.items.map((d) => d.threatContent).sort()).toEqual([
      'acme-airdrop.app',
      'acme-known.xyz',
      'acme-login.xyz',
    ]);
    expect(listed.items.find((d) => d.threatContent === 'acme-known.xyz')?.asset.status).toBe('BLOCKED');
  });

  it('records the same asset again for another source', async () => {
    const recorded = await processCandidates(deps, { ...run, source: 'EXTERNAL' }, CANDIDATES.slice(0, 1), Date.now());

    expect(recorded.map((d) => [d.source, d.threatContent])).toEqual([['EXTERNAL', 'acme-login.xyz']]);
  });

  it('pages newest first by id with no detection twice or missing', async () => {
    const seen: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await store.listDetections('acme', before, 1);
      seen.push(...page.items.map((d) => d.id));
      if (!page.more) break;
      before = page.items[page.items.length - 1]?.id;
    }

    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(new Set(seen).size).toBe(4);
  });

  it('takes the report of a detection once among concurrent claims', async () => {
    const [first] = (await store.listDetections('acme', undefined, 1)).items;
    const claims = await Promise.all(Array.from({ length: 5 }, () => store.claimReport('acme', first?.id as number)));

    expect(claims.filter(Boolean)).toHaveLength(1);
  });
});

describe('auto-reporting in DynamoDB Local', () => {
  it('files the report of a lookalike its organization rejected once before, and none of one rejected twice', async () => {
    const activity = activityRepository(table.db, table.tableName);
    const rejected = (id: string, content: string) =>
      applyActivity(suffixes, activity, {
        organization: 'acme',
        kind: 'threat',
        id,
        content,
        assetType: 'URL',
        status: 'REJECTED',
        watchlisted: false,
        brands: [],
        createdAt: '2026-01-01T00:00:00Z',
        updatedAt: '2026-01-01T00:00:00Z',
        deleted: false,
      });
    await rejected('r-1', 'acme-refund.xyz');
    await rejected('r-2', 'acme-refund.xyz');
    await rejected('r-3', 'acme-claim.xyz');
    await table.db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...key.detectionSettings('acme'), autoReport: true } }),
    );
    const reporting: PipelineDeps = {
      ...deps,
      reports: {
        store: activity,
        verdicts: checkIndexRepository(table.db, table.tableName, { ttlMs: 0, maxEntries: 0 }),
        directory: directoryRepository(table.db, table.tableName),
        ignoredHosts: [],
        suffixes,
      },
    };

    const recorded = await processCandidates(
      reporting,
      { ...run, source: 'DNS_TWIST', configId: 2 },
      ['acme-refund.xyz', 'acme-claim.xyz'].map((content) => ({ content, reason: 'test' })),
      Date.now(),
    );
    const listed = (await store.listDetections('acme', undefined, 100)).items.filter((d) => d.source === 'DNS_TWIST');
    const status = (content: string) => listed.find((d) => d.threatContent === content)?.reportStatus;

    expect(recorded.map((d) => d.threatContent).sort()).toEqual(['acme-claim.xyz', 'acme-refund.xyz']);
    expect(status('acme-claim.xyz')).toBe('REPORTED');
    expect(status('acme-refund.xyz')).toBe('NOT_REPORTED');
  });
});
