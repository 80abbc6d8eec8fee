import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/intake/scan-worker.ts';
import type { CheckResult } from '../../../shared/domain/check/types.ts';
import { runScan, type Scan, type ScanStore, type WorkerDeps } from '../../../shared/domain/intake/scans.ts';
import type { LifecycleStore } from '../../../shared/domain/lifecycle/store.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const NOW = Date.parse('2026-11-26T10:00:00Z');
const MALICIOUS_CONTENT = 'https://acme-wallet-airdrop-claim.xyz/connect';

const pending = (id: number, content: string, organization?: string): Scan => ({
  id,
  content,
  type: 'URL',
  checkKey: content.replace(/^https:\/\//, ''),
  owner: organization ? `org:${organization}` : 'user:u-1',
  ...(organization ? { organization } : {}),
  status: 'PENDING',
  result: null,
  createdAt: new Date(NOW).toISOString(),
  completedAt: null,
});

/** Scans in memory, and the reports the worker asked the lifecycle to file. */
const world = (scans: Scan[], failing: ReadonlySet<number> = new Set()) => {
  const claims = new Set<string>();
  const filed: string[] = [];
  const store: ScanStore = {
    async create() {},
    async find(id) {
      if (failing.has(id)) throw new Error('store unavailable');
      return scans.find((scan) => scan.id === id);
    },
    async complete(id, result, at) {
      const scan = scans.find((candidate) => candidate.id === id);
      if (scan?.status !== 'PENDING') return false;
      Object.assign(scan, { status: 'COMPLETED', result, completedAt: at });
      return true;
    },
    async claimReport(orgId, checkKey) {
      if (claims.has(`${orgId}/${checkKey}`)) return false;
      claims.add(`${orgId}/${checkKey}`);
      return true;
    },
    async releaseReport(orgId, checkKey) {
      claims.delete(`${orgId}/${checkKey}`);
    },
  };
  const unknown: CheckResult = { status: 'UNKNOWN', source: 'service', sources: [] };
  const deps: WorkerDeps = {
    scans: store,
    suffixes,
    checker: { check: () => unknown },
    directory: { listBrands: async () => [{ orgId: 'acme', slug: 'acme-wallet', name: 'Acme Wallet' }] },
    assets: { list: async () => ({ assets: [] }) },
    reports: {
      store: {
        claimHolders: async () => new Map(),
        commitInParts: async (count: number, part: Parameters<LifecycleStore['commitInParts']>[1]) => {
          for (const write of part(0, count, 'whole').writes) {
            if (write.next.kind === 'report') filed.push(write.next.title ?? '');
          }
          return { outcome: 'committed', written: count };
        },
      } as never,
      verdicts: { lookup: (keys) => keys.map(() => undefined) },
      directory: { findOrganization: async () => ({ slug: 'acme', name: 'Acme', featureFlags: [] }) },
      ignoredHosts: [],
      suffixes,
    },
    isDisputed: async () => false,
  };
  return { deps, filed };
};
const sqsEvent = (...bodies: string[]): SQSEvent =>
  ({ Records: bodies.map((body, i) => ({ messageId: `m-${i}`, body })) }) as SQSEvent;

describe('the scan worker', () => {
  it('runs a scan delivered twice once, filing one report for a MALICIOUS result', async () => {
    const { deps, filed } = world([pending(1, MALICIOUS_CONTENT, 'acme')]);

    await runScan(deps, 1, NOW);
    await runScan(deps, 1, NOW + 1000);

    expect(filed).toHaveLength(1);
    expect(filed[0]).toMatch(/^Scan 1: MALICIOUS \(score \d+\)$/);
  });

  it('files no report for a scan of no organization', async () => {
    const scans = [pending(2, MALICIOUS_CONTENT)];
    const { deps, filed } = world(scans);

    await runScan(deps, 2, NOW);

    expect(scans[0]?.status).toBe('COMPLETED');
    expect(filed).toEqual([]);
  });

  it('reports back only the messages whose scan failed, so SQS retries those alone', async () => {
    const scans = [pending(3, 'example.com', 'acme'), pending(4, 'example.org', 'acme')];
    const { deps } = world(scans, new Set([4]));

    const response = await createHandler(deps, () => NOW)(sqsEvent('3', '4', 'not-a-number'));

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(scans.map((scan) => scan.status)).toEqual(['COMPLETED', 'PENDING']);
  });

  it('reports back every message when every scan of the batch fails, instead of failing the invocation', async () => {
    const scans = [pending(5, 'example.com', 'acme'), pending(6, 'example.org', 'acme')];
    const { deps } = world(scans, new Set([5, 6]));

    const response = await createHandler(deps, () => NOW)(sqsEvent('5', '6'));

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-0' }, { itemIdentifier: 'm-1' }] });
    expect(scans.map((scan) => scan.status)).toEqual(['PENDING', 'PENDING']);
  });
});
