import { describe, expect, it } from 'vitest';
import type { Membership } from '../../../shared/domain/account/organizations.ts';
import { entryKeyOf } from '../../../shared/domain/check/canonical.ts';
import type { CheckResult } from '../../../shared/domain/check/types.ts';
import { assetIdOf, recordNumber } from '../../../shared/domain/core/ids.ts';
import type { ActivityRecord } from '../../../shared/domain/lifecycle/activity.ts';
import { type SearchDeps, searchAsset, type VerdictEntry } from '../../../shared/domain/lookups/search.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const CONTENT = 'shared-phish.xyz';
const ASSET_ID = assetIdOf(entryKeyOf(suffixes, CONTENT, 'URL') as string);

const threat = (organization: string, id: string, at: string, status: 'PENDING' | 'REJECTED'): ActivityRecord => ({
  organization,
  kind: 'threat',
  id,
  reportId: `r-${id}`,
  assetId: ASSET_ID,
  content: CONTENT,
  assetType: 'URL',
  status,
  watchlisted: false,
  brands: [],
  createdAt: at,
  updatedAt: at,
  deleted: false,
});
const report = (organization: string, id: string, at: string): ActivityRecord => ({
  organization,
  kind: 'report',
  id,
  title: `${organization} report`,
  status: 'TODO',
  brands: [],
  createdAt: at,
  updatedAt: at,
  deleted: false,
});

const UNKNOWN: CheckResult = {
  status: 'UNKNOWN',
  source: 'service',
  sources: [{ source: 'service', status: 'UNKNOWN' }],
};

/** Acme and Globex each reported the content; a user is ACTIVE in Acme and INACTIVE in Globex. */
const deps = (entry?: VerdictEntry, newer: ActivityRecord[] = []): SearchDeps => {
  const records = [
    ...newer,
    threat('globex', 't-2', '2026-03-02T10:00:00.000Z', 'REJECTED'),
    threat('acme', 't-1', '2026-03-01T10:00:00.000Z', 'PENDING'),
  ];
  const reports = [
    report('acme', 'r-t-1', '2026-03-01T10:00:00.000Z'),
    report('globex', 'r-t-2', '2026-03-02T10:00:00.000Z'),
  ];
  const memberships: Membership[] = [
    { userId: 'u-1', orgId: 'acme', status: 'ACTIVE' },
    { userId: 'u-1', orgId: 'globex', status: 'INACTIVE' },
  ];
  return {
    suffixes,
    checker: { check: () => UNKNOWN },
    verdicts: { find: async () => entry },
    lists: {
      page: async () => ({ records: [] }),
      byAsset: async (id, limit) => (id === ASSET_ID ? records.slice(0, limit) : []),
      byAssetOf: async (id, organization, limit) =>
        id === ASSET_ID ? records.filter((record) => record.organization === organization).slice(0, limit) : [],
    },
    store: { find: async (ref) => reports.find((r) => r.organization === ref.organization && r.id === ref.id) },
    directory: {
      findMembership: async (userId, orgId) => memberships.find((m) => m.userId === userId && m.orgId === orgId),
    },
    consumers: {
      blockedSince: async () => undefined,
      firstDelivery: async () => undefined,
      taxiiAddedAt: async () => undefined,
    },
  };
};

describe('searchAsset', () => {
  it("finds an organization's own report of a content that many other organizations reported since", async () => {
    const others = Array.from({ length: 30 }, (_, i) =>
      threat(`org-${i}`, `t-o${i}`, `2026-03-10T10:00:${String(i).padStart(2, '0')}.000Z`, 'PENDING'),
    );

    const result = await searchAsset(
      deps(undefined, others),
      { kind: 'organization', orgId: 'acme' },
      { content: CONTENT },
    );

    expect(result.reports).toEqual([
      {
        id: recordNumber('report', 'acme', 'r-t-1'),
        title: 'acme report',
        status: 'TODO',
        createdAt: '2026-03-01T10:00:00.000Z',
      },
    ]);
  });

  it('shows a user only the records of organizations where it is an ACTIVE member, and dates the asset by them', async () => {
    const result = await searchAsset(deps(), { kind: 'user', userId: 'u-1' }, { content: CONTENT });

    expect(result).toEqual({
      asset: {
        id: ASSET_ID,
        content: CONTENT,
        type: 'URL',
        status: 'UNKNOWN',
        watchStatus: 'DISABLED',
        createdAt: '2026-03-01T10:00:00.000Z',
        updatedAt: '2026-03-01T10:00:00.000Z',
      },
      reports: [
        {
          id: recordNumber('report', 'acme', 'r-t-1'),
          title: 'acme report',
          status: 'TODO',
          createdAt: '2026-03-01T10:00:00.000Z',
        },
      ],
      takedown: null,
      blockedBy: [],
    });
  });

  it('dates the asset by the public verdict alone for an organization with no record of it', async () => {
    const entry = { allow: 0, block: 0, watch: 1, changedAt: '2026-03-05T00:00:00.000Z' };

    const result = await searchAsset(deps(entry), { kind: 'organization', orgId: 'initech' }, { assetId: ASSET_ID });

    expect(result).toEqual({
      asset: {
        id: ASSET_ID,
        content: CONTENT,
        type: 'URL',
        status: 'UNKNOWN',
        watchStatus: 'ENABLED',
        createdAt: '2026-03-05T00:00:00.000Z',
        updatedAt: '2026-03-05T00:00:00.000Z',
      },
      reports: [],
      takedown: null,
      blockedBy: [],
    });
  });

  it('answers no asset by id for one known only through another organization’s pending proposal, as for an unknown id', async () => {
    const globexPending = [threat('globex', 't-9', '2026-03-02T10:00:00.000Z', 'PENDING')];
    const pendingElsewhere: SearchDeps = {
      ...deps(),
      lists: {
        page: async () => ({ records: [] }),
        byAsset: async (id) => (id === ASSET_ID ? globexPending : []),
        byAssetOf: async () => [],
      },
    };
    const initech = { kind: 'organization', orgId: 'initech' } as const;

    const unknown = { asset: null, reports: [], takedown: null, blockedBy: [] };
    expect(await searchAsset(pendingElsewhere, initech, { assetId: ASSET_ID })).toEqual(unknown);
    expect(await searchAsset(pendingElsewhere, initech, { assetId: ASSET_ID + 1 })).toEqual(unknown);
  });

  it('answers by id an asset the caller’s own pending proposal names, or another organization’s reviewed one', async () => {
    const acme = await searchAsset(deps(), { kind: 'organization', orgId: 'acme' }, { assetId: ASSET_ID });
    const initech = await searchAsset(deps(), { kind: 'organization', orgId: 'initech' }, { assetId: ASSET_ID });

    expect([acme.asset?.content, acme.asset?.createdAt]).toEqual([CONTENT, '2026-03-01T10:00:00.000Z']);
    expect([initech.asset?.content, initech.asset?.createdAt, initech.reports]).toEqual([CONTENT, null, []]);
  });

  it('refuses a query with neither content nor assetId', async () => {
    await expect(searchAsset(deps(), { kind: 'organization', orgId: 'acme' }, {})).rejects.toThrow(
      'content or assetId is required',
    );
  });
});
