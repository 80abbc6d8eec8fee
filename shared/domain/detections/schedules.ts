import { BadRequestError } from '../../errors.ts';

/**
 * Schedule classes: one scheduler tick (one EventBridge schedule in AWS) per class, whatever the
 * number of configs. A config's class is the finest unit its cron names: a cron that fires at a
 * minute other than :00 ticks every 15 minutes (it runs at the first tick at or after each of its
 * times, so never more often than every 15 minutes); one on the hour ticks hourly; one at midnight
 * only ticks daily. Hourly and daily crons therefore run on time.
 */
export const SCHEDULE_CLASSES = ['quarter-hourly', 'hourly', 'daily'] as const;
export type ScheduleClass = (typeof SCHEDULE_CLASSES)[number];

/** Each class's tick as an EventBridge Scheduler expression (UTC). */
export const CLASS_EXPRESSIONS: Record<ScheduleClass, string> = {
  'quarter-hourly': 'cron(0/15 * * * ? *)',
  hourly: 'cron(0 * * * ? *)',
  daily: 'cron(0 0 * * ? *)',
};

type Field = { min: number; max: number; names?: readonly string[] };
const FIELDS: readonly Field[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  { min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

export type Cron = {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Day of month and day of week both restricted: a day matches either (POSIX cron). */
  eitherDay: boolean;
};

const fieldValue = (text: string, field: Field): number | undefined => {
  const upper = text.toUpperCase();
  const named = field.names?.indexOf(upper) ?? -1;
  if (named >= 0) return named + field.min;
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= field.min && value <= field.max ? value : undefined;
};

const parseField = (text: string, field: Field): Set<number> | undefined => {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range = '', stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isSafeInteger(step) || step < 1) return undefined;
    let from: number | undefined;
    let to: number | undefined;
    if (range === '*' || range === '?') [from, to] = [field.min, field.max];
    else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      [from, to] = [fieldValue(a, field), fieldValue(b, field)];
    } else {
      from = fieldValue(range, field);
      to = stepText === undefined ? from : field.max;
    }
    if (from === undefined || to === undefined || from > to) return undefined;
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return values;
};

/** A five-field cron (minute hour day-of-month month day-of-week, UTC); undefined when it is not one. */
export const parseCron = (text: string): Cron | undefined => {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5) return undefined;
  const sets = parts.map((part, i) => parseField(part, FIELDS[i] as Field));
  if (sets.some((set) => set === undefined || set.size === 0)) return undefined;
  const [minutes, hours, days, months, weekdays] = sets as Set<number>[];
  if (weekdays?.has(7)) weekdays.add(0);
  const restricted = (part: string) => part !== '*' && part !== '?';
  return {
    minutes: minutes as Set<number>,
    hours: hours as Set<number>,
    days: days as Set<number>,
    months: months as Set<number>,
    weekdays: weekdays as Set<number>,
    eitherDay: restricted(parts[2] as string) && restricted(parts[4] as string),
  };
};

/** The cron of a create or update, or a 400 naming `body.cron`. */
export const checkedCron = (text: string): Cron => {
  const cron = parseCron(text);
  if (cron === undefined) {
    const message = `cron ${text} is not a valid five-field expression`;
    throw new BadRequestError(message, { issues: [{ message, path: 'body.cron' }] });
  }
  return cron;
};

export const scheduleClassOf = (cron: Cron): ScheduleClass => {
  if (cron.minutes.size !== 1 || !cron.minutes.has(0)) return 'quarter-hourly';
  if (cron.hours.size !== 1 || !cron.hours.has(0)) return 'hourly';
  return 'daily';
};

const MINUTE = 60_000;
/** Two years of minutes bounds the search (a 29 February cron on a Monday still fires within it). */
const SEARCH_MINUTES = 2 * 366 * 24 * 60;

const dayMatches = (cron: Cron, at: Date) => {
  const day = cron.days.has(at.getUTCDate());
  const weekday = cron.weekdays.has(at.getUTCDay());
  return cron.eitherDay ? day || weekday : day && weekday;
};

/** The first time strictly after `after` (ms) the cron names, to the minute; undefined if none within two years. */
export const nextCronTime = (cron: Cron, after: number): number | undefined => {
  let at = Math.floor(after / MINUTE) * MINUTE + MINUTE;
  for (let i = 0; i < SEARCH_MINUTES; i++) {
    const date = new Date(at);
    if (!cron.months.has(date.getUTCMonth() + 1) || !dayMatches(cron, date)) {
      at = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
      continue;
    }
    if (!cron.hours.has(date.getUTCHours())) {
      at = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours() + 1);
      continue;
    }
    if (cron.minutes.has(date.getUTCMinutes())) return at;
    at += MINUTE;
  }
  return undefined;
};
