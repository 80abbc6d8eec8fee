import { describe, expect, it } from 'vitest';
import { entryKeyOf } from '../../../shared/domain/check/index.ts';
import { assetIdOf, recordNumber } from '../../../shared/domain/core/ids.ts';
import { type ActivityChange, parseActivityChange } from '../../../shared/domain/lifecycle/activity.ts';
import { withBackingReports } from '../../../shared/domain/lifecycle/backing-reports.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const threat = (fields: Record<string, unknown> = {}): ActivityChange =>
  parseActivityChange({
    organization: 'acme',
    kind: 'threat',
    id: 't-1',
    content: 'backed-phish.xyz',
    assetType: 'URL',
    status: 'BLOCKED',
    brands: ['acme-wallet'],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: '2026-03-02T10:00:00Z',
    ...fields,
  });

describe('withBackingReports', () => {
  it('gives a blocking threat without a report a closed report whose one approved proposal is the threat', () => {
    const changes = withBackingReports(suffixes, [threat()]);

    expect(changes).toEqual([
      {
        kind: 'report',
        organization: 'acme',
        id: 'report-for-t-1',
        brands: ['acme-wallet'],
        createdAt: '2026-03-01T10:00:00.000Z',
        updatedAt: '2026-03-01T10:00:00.000Z',
        deleted: false,
        title: 'Blocked: backed-phish.xyz',
        status: 'CLOSED',
        proposals: [
          {
            id: recordNumber('threat', 'acme', 't-1'),
            assetId: assetIdOf(entryKeyOf(suffixes, 'backed-phish.xyz', 'URL') as string),
            content: 'backed-phish.xyz',
            type: 'URL',
            reviewStatus: 'APPROVED',
          },
        ],
      },
      { ...threat(), reportId: 'report-for-t-1' },
    ]);
    expect(parseActivityChange(changes[0])).toEqual(changes[0]);
  });

  it('gives the same report id on a reload, so loading the same changes again adds nothing', () => {
    expect(withBackingReports(suffixes, [threat()])).toEqual(withBackingReports(suffixes, [threat()]));
  });

  it.each([
    ['names its report', threat({ reportId: 'r-9' })],
    ['is pending', threat({ status: 'PENDING' })],
    ['was rejected', threat({ status: 'REJECTED' })],
    ['is deleted', threat({ deleted: true })],
  ])('leaves a threat that %s as it is', (_, change) => {
    expect(withBackingReports(suffixes, [change])).toEqual([change]);
  });
});
