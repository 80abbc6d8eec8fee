import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { dayOfBound } from '../../../shared/domain/core/dates.ts';
import { metricsDate } from '../../../shared/domain/insights/metrics.ts';

describe('metrics date bounds', () => {
  it.each([
    ['2026-03-01', '2026-03-01'],
    ['2024-02-29', '2024-02-29'],
    ['2026-03-01T00:00:00Z', '2026-03-01'],
    ['2026-03-01T23:59:59.999Z', '2026-03-01'],
    ['2026-03-01t10:00z', '2026-03-01'],
    ['2026-03-01T23:30:00-02:00', '2026-03-02'],
    ['2026-03-01T01:30:00+05:30', '2026-02-28'],
    ['2026-03-01T10:00:00.123456789+00:00', '2026-03-01'],
    ['2024-01-01T00:00:00', '2024-01-01'],
    ['2026-03-01T23:59:59.999', '2026-03-01'],
    ['2026-03-01T23:30', '2026-03-01'],
  ])('reads %s as the whole UTC day %s', (bound, day) => {
    expect(dayOfBound(bound)).toBe(day);
  });

  it.each([
    '2026-02-29',
    '2026-13-01',
    '2026-3-1',
    '20260301',
    '2026-03-01T24:00:00Z',
    '2026-03-01T10:60:00Z',
    '2026-03-01T24:00:00',
    '2026-03-01T10:00:00+0200',
    '2026-03-01 10:00:00Z',
    '2026-03-01T10:00:00+25:00',
    'yesterday',
    '',
  ])('rejects %j', (bound) => {
    expect(dayOfBound(bound)).toBeUndefined();
  });

  it('answers an invalid bound with the documented message', () => {
    const result = v.safeParse(metricsDate, '01/03/2026');

    expect(result.issues?.map((issue) => issue.message)).toEqual(['Invalid date format. Use ISO 8601 format.']);
  });
});
