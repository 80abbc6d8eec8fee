import { describe, expect, it } from 'vitest';
import { entryKeyOf } from '../../../shared/domain/check/canonical.ts';
import type { ActivityRecord } from '../../../shared/domain/lifecycle/activity.ts';
import { publicReport } from '../../../shared/domain/lifecycle/report-page.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const report = (organization: string, extra: Partial<ActivityRecord> = {}): ActivityRecord =>
  ({
    organization,
    kind: 'report',
    id: '1795437857996766',
    title: 'Fake airdrop',
    status: 'IN_PROGRESS',
    brands: [],
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T11:00:00.000Z',
    deleted: false,
    proposals: [
      { id: 1, assetId: 11, content: 'blocked-one.xyz', type: 'URL', reviewStatus: 'APPROVED' },
      { id: 2, assetId: 12, content: 'pending-one.xyz', type: 'URL', reviewStatus: 'PENDING' },
    ],
    ...extra,
  }) as ActivityRecord;

const BLOCKED_KEY = entryKeyOf(suffixes, 'blocked-one.xyz', 'URL') as string;
const deps = (records: ActivityRecord[], asked: string[] = []) => ({
  reports: {
    reportsWithId: async (id: string) => {
      asked.push(id);
      return records;
    },
  },
  verdicts: {
    lookup: (keys: readonly string[]) =>
      keys.map((key) => (key === BLOCKED_KEY ? { allow: 0, block: 1, watch: 0 } : undefined)),
  },
  suffixes,
});

describe('publicReport', () => {
  it('answers the id, status, dates and each approved asset with its current verdict, nothing else', async () => {
    const page = await publicReport(deps([report('acme')]), '1795437857996766');

    expect(page).toEqual({
      id: 1795437857996766,
      status: 'IN_PROGRESS',
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T11:00:00.000Z',
      assets: [{ content: 'blocked-one.xyz', type: 'URL', verdict: 'BLOCKED' }],
    });
  });

  it('answers a report whose proposals are all pending or rejected with its status and dates only', async () => {
    const pending = report('acme', {
      status: 'TODO',
      proposals: [
        { id: 2, assetId: 12, content: 'pending-one.xyz', type: 'URL', reviewStatus: 'PENDING' },
        { id: 3, assetId: 13, content: 'rejected-one.xyz', type: 'URL', reviewStatus: 'REJECTED' },
      ],
    });

    const page = await publicReport(deps([pending]), '1795437857996766');

    expect(page).toEqual({
      id: 1795437857996766,
      status: 'TODO',
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T11:00:00.000Z',
      assets: [],
    });
  });

  it('answers nothing for an id two organizations’ reports share, or a report still being written', async () => {
    expect(await publicReport(deps([report('acme'), report('globex')]), '1795437857996766')).toBeUndefined();
    expect(await publicReport(deps([report('acme', { incomplete: true })]), '1795437857996766')).toBeUndefined();
  });

  it('answers nothing for an id no report could have, without reading the table', async () => {
    const asked: string[] = [];

    const page = await publicReport(deps([report('acme')], asked), '../<script>');

    expect(page).toBeUndefined();
    expect(asked).toEqual([]);
  });
});
