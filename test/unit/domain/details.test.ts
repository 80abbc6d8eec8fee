import { describe, expect, it } from 'vitest';
import { entryKeyOf } from '../../../shared/domain/check/canonical.ts';
import { assetIdOf, recordNumber } from '../../../shared/domain/core/ids.ts';
import type { ActivityRecord } from '../../../shared/domain/lifecycle/activity.ts';
import { assetDetails, type DetailsDeps } from '../../../shared/domain/lookups/lookups.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const CONTENT = 'popular-phish.xyz';
const ASSET_ID = assetIdOf(entryKeyOf(suffixes, CONTENT, 'URL') as string);

const blockingThreat = (organization: string, id: string, at: string): ActivityRecord => ({
  organization,
  kind: 'threat',
  id,
  reportId: `r-${id}`,
  assetId: ASSET_ID,
  content: CONTENT,
  assetType: 'URL',
  status: 'BLOCKED',
  watchlisted: false,
  brands: [],
  createdAt: at,
  updatedAt: at,
  deleted: false,
});

/** Acme's threat is older than thirty other organizations' threats on the same content. */
const deps = (): DetailsDeps => {
  const records = [
    ...Array.from({ length: 30 }, (_, i) =>
      blockingThreat(`org-${i}`, `t-o${i}`, `2026-03-10T10:00:${String(i).padStart(2, '0')}.000Z`),
    ),
    blockingThreat('acme', 't-acme', '2026-03-01T10:00:00.000Z'),
  ];
  return {
    suffixes,
    checker: {
      check: async () => ({
        status: 'BLOCKED',
        source: 'service',
        sources: [{ source: 'service', status: 'BLOCKED' }],
      }),
    },
    lists: {
      page: async () => ({ records: [] }),
      byAsset: async (id, limit) => (id === ASSET_ID ? records.slice(0, limit) : []),
      byAssetOf: async (id, organization, limit) =>
        id === ASSET_ID ? records.filter((record) => record.organization === organization).slice(0, limit) : [],
    },
    directory: { findMembership: async () => undefined },
    reportUrlBase: 'https://reports.example/',
  };
};

describe('assetDetails', () => {
  it("names the caller's own report of a content that many other organizations block too", async () => {
    const reportId = recordNumber('report', 'acme', 'r-t-acme');

    const result = await assetDetails(deps(), { kind: 'organization', orgId: 'acme' }, CONTENT);

    expect(result).toEqual({
      status: 'BLOCKED',
      reason: 'report',
      reportId,
      reportUrl: `https://reports.example/${reportId}`,
    });
  });

  it('names another organization’s blocking report when the caller has none, so the link is never missing', async () => {
    const reportId = recordNumber('report', 'org-0', 'r-t-o0');

    const result = await assetDetails(deps(), { kind: 'organization', orgId: 'initech' }, CONTENT);

    expect(result).toEqual({
      status: 'BLOCKED',
      reason: 'report',
      reportId,
      reportUrl: `https://reports.example/${reportId}`,
    });
  });

  it('names the report behind a parent domain whose block the content inherits', async () => {
    const reportId = recordNumber('report', 'acme', 'r-t-acme');

    const result = await assetDetails(
      deps(),
      { kind: 'organization', orgId: 'acme' },
      `https://login.${CONTENT}/claim`,
    );

    expect(result).toEqual({
      status: 'BLOCKED',
      reason: 'report',
      reportId,
      reportUrl: `https://reports.example/${reportId}`,
    });
  });
});
