import { describe, expect, it } from 'vitest';
import { checkedCron, nextCronTime, parseCron, scheduleClassOf } from '../../../shared/domain/detections/schedules.ts';

const next = (cron: string, after: string) =>
  new Date(
    nextCronTime(parseCron(cron) as NonNullable<ReturnType<typeof parseCron>>, Date.parse(after)) as number,
  ).toISOString();

describe('detection schedules', () => {
  it.each([
    ['*/15 * * * *', 'quarter-hourly'],
    ['30 6 * * *', 'quarter-hourly'],
    ['0 * * * *', 'hourly'],
    ['0 6 * * *', 'hourly'],
    ['0 */6 * * *', 'hourly'],
    ['0 0 * * *', 'daily'],
    ['0 0 * * MON', 'daily'],
    ['0 0 1 * *', 'daily'],
  ])('puts %s in the %s class', (cron, expected) => {
    expect(scheduleClassOf(parseCron(cron) as NonNullable<ReturnType<typeof parseCron>>)).toBe(expected);
  });

  it('names the next time strictly after the given one, to the minute, in UTC', () => {
    expect(next('*/15 * * * *', '2026-03-01T10:07:30Z')).toBe('2026-03-01T10:15:00.000Z');
    expect(next('*/15 * * * *', '2026-03-01T10:15:00Z')).toBe('2026-03-01T10:30:00.000Z');
    expect(next('0 6 * * *', '2026-03-01T06:00:00Z')).toBe('2026-03-02T06:00:00.000Z');
    expect(next('0 0 * * MON', '2026-03-01T00:00:00Z')).toBe('2026-03-02T00:00:00.000Z');
    expect(next('0 12 29 2 *', '2026-03-01T00:00:00Z')).toBe('2028-02-29T12:00:00.000Z');
  });

  it('takes a day of month or a day of week when both are restricted, as cron does', () => {
    expect(next('0 0 15 * FRI', '2026-03-01T00:00:00Z')).toBe('2026-03-06T00:00:00.000Z');
    expect(next('0 0 15 * FRI', '2026-03-13T00:00:00Z')).toBe('2026-03-15T00:00:00.000Z');
  });

  it('reads 7 as Sunday, ? as any, names of months and days, and a step from a start', () => {
    expect(next('0 0 * * 7', '2026-03-01T00:00:00Z')).toBe('2026-03-08T00:00:00.000Z');
    expect(next('0 0 ? * *', '2026-03-01T00:00:00Z')).toBe('2026-03-02T00:00:00.000Z');
    expect(next('0 0 1 jan,JUL *', '2026-03-01T00:00:00Z')).toBe('2026-07-01T00:00:00.000Z');
    expect(next('5/20 * * * *', '2026-03-01T10:26:00Z')).toBe('2026-03-01T10:45:00.000Z');
  });

  it('finds a 29 February four years on, and names nothing for a day that never comes', () => {
    expect(next('0 0 29 2 *', '2028-03-01T00:00:00Z')).toBe('2032-02-29T00:00:00.000Z');
    expect(nextCronTime(parseCron('0 0 31 2 *') as NonNullable<ReturnType<typeof parseCron>>, 0)).toBeUndefined();
  });

  it('answers a bad cron with a 400 naming body.cron', () => {
    expect(() => checkedCron('61 * * * *')).toThrow(
      expect.objectContaining({
        message: 'cron 61 * * * * is not a valid five-field expression',
        issues: [{ message: 'cron 61 * * * * is not a valid five-field expression', path: 'body.cron' }],
      }),
    );
  });

  it.each([
    '* * * *',
    '0 0 * * * *',
    '@daily',
    '60 * * * *',
    '0 24 * * *',
    '0 0 32 * *',
    '0 0 * 13 *',
    '*/0 * * * *',
    '5-1 * * * *',
    'a b c d e',
  ])('refuses %s', (cron) => {
    expect(parseCron(cron)).toBeUndefined();
  });
});
