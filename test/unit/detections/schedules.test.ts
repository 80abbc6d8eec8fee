import { describe, expect, it } from 'vitest';
import { nextCronTime, parseCron, scheduleClassOf } from '../../../shared/domain/detections/schedules.ts';

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
  });

  it.each(['* * * *', '60 * * * *', '0 24 * * *', '*/0 * * * *', '5-1 * * * *', 'a b c d e'])('refuses %s', (cron) => {
    expect(parseCron(cron)).toBeUndefined();
  });
});
