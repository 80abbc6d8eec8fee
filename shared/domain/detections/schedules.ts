import { Cron as Croner, CronPattern } from 'croner';
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

/** A five-field cron (minute hour day-of-month month day-of-week), read in UTC. */
export type Cron = {
  job: Croner;
  /** The minutes and hours of the day it names, ascending. */
  minutes: readonly number[];
  hours: readonly number[];
};

const OPTIONS = {
  mode: '5-part',
  timezone: 'UTC',
  // Day of month and day of week both restricted: a day matches either (POSIX cron).
  domAndDow: false,
  // `5/15` is from 5 every 15, as EventBridge and Quartz read it.
  sloppyRanges: true,
} as const;

const valuesOf = (flags: readonly number[]) => flags.flatMap((flag, value) => (flag ? [value] : []));

/** A five-field cron (UTC); undefined when it is not one. Nicknames such as `@daily` are not five fields. */
export const parseCron = (text: string): Cron | undefined => {
  if (text.trim().split(/\s+/).length !== 5) return undefined;
  try {
    const job = new Croner(text, OPTIONS);
    const pattern = new CronPattern(text, OPTIONS.timezone, OPTIONS);
    return { job, minutes: valuesOf(pattern.minute), hours: valuesOf(pattern.hour) };
  } catch {
    return undefined;
  }
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
  if (cron.minutes.length !== 1 || cron.minutes[0] !== 0) return 'quarter-hourly';
  if (cron.hours.length !== 1 || cron.hours[0] !== 0) return 'hourly';
  return 'daily';
};

/** The first time strictly after `after` (ms) the cron names, to the minute; undefined if it names none. */
export const nextCronTime = (cron: Cron, after: number): number | undefined =>
  cron.job.nextRun(new Date(after))?.getTime();
