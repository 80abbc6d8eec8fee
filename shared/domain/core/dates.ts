import { BadRequestError } from '../../errors.ts';

/** Calendar dates and instants as the API writes them: strict ISO 8601, days as `YYYY-MM-DD` UTC. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|([+-])(\d{2}):(\d{2}))$/i;
const DAY_MS = 86_400_000;

/** What `dayOfBound` accepts, calendar days included, as one JSON Schema pattern. */
const CALENDAR_DAY =
  '(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))' +
  '|(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';
export const BOUND_PATTERN = `^${CALENDAR_DAY}(?:[Tt](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?(?:[Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)?)?$`;

/** Milliseconds of a calendar date at 00:00 UTC; undefined for a day that does not exist (2026-02-30). */
const utcMidnight = (year: number, month: number, day: number): number | undefined => {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const exists = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return exists ? date.getTime() : undefined;
};

const isRepresentable = (ms: number): boolean => ms >= Date.UTC(1, 0, 1) && ms < Date.UTC(10_000, 0, 1);

/** The instant of a strict ISO 8601 date-time with `Z` or an offset; undefined for anything else. */
export const parseInstant = (text: string): number | undefined => {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '', mi = '', s = '0', fraction = '', zone = '', sign, oh = '0', om = '0'] = m;
  const midnight = utcMidnight(Number(y), Number(mo), Number(d));
  const [hours, minutes, seconds, offsetHours, offsetMinutes] = [
    Number(h),
    Number(mi),
    Number(s),
    Number(oh),
    Number(om),
  ];
  if (midnight === undefined || hours > 23 || minutes > 59 || seconds > 59 || offsetHours > 23 || offsetMinutes > 59) {
    return undefined;
  }
  const offset = zone.toUpperCase() === 'Z' ? 0 : (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const ms =
    midnight + ((hours * 60 + minutes - offset) * 60 + seconds) * 1000 + Number(fraction.slice(0, 3).padEnd(3, '0'));
  return isRepresentable(ms) ? ms : undefined;
};

/** `YYYY-MM-DD` of the UTC day an instant falls on. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** A date-time without `Z` or an offset. */
const NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/i;

/**
 * A metrics bound as the UTC day it covers: `YYYY-MM-DD` as is, a date-time by the UTC day of its
 * instant; a date-time without an offset is UTC.
 */
export const dayOfBound = (text: string): string | undefined => {
  const m = DATE.exec(text);
  if (m) return utcMidnight(Number(m[1]), Number(m[2]), Number(m[3])) === undefined ? undefined : text;
  const instant = parseInstant(NO_OFFSET.test(text) ? `${text}Z` : text);
  return instant === undefined ? undefined : utcDay(instant);
};

export const nextDay = (day: string): string => utcDay(Date.parse(`${day}T00:00:00Z`) + DAY_MS);

const dayBefore = (day: string): string => utcDay(Date.parse(`${day}T00:00:00Z`) - DAY_MS);

/** 400 when both bounds are given and the first is after the second. */
export const orderedBounds = (from: string | undefined, to: string | undefined): void => {
  if (from !== undefined && to !== undefined && from > to) {
    throw new BadRequestError('startDate must not be after endDate', {
      issues: [{ message: 'startDate must not be after endDate', path: 'startDate' }],
    });
  }
};

/**
 * The inclusive window of days of a listing: by default the last day (yesterday and today, UTC);
 * an `endDate` alone is that one day.
 */
export const dayWindow = (query: { startDate?: string; endDate?: string }, today: string) => {
  const endDay = query.endDate ?? today;
  const startDay = query.startDate ?? (query.endDate === undefined ? dayBefore(endDay) : endDay);
  orderedBounds(startDay, endDay);
  return { startDay, endDay };
};
