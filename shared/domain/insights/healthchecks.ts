import { NotFoundError } from '../../errors.ts';
import type { Caller } from '../account/access.ts';
import {
  effectiveSettings,
  HEALTHCHECK_KEYS,
  type HealthcheckKey,
  type OrganizationSettings,
  type SettingsStore,
  type StageThresholds,
  type Threshold,
} from '../account/organization-settings.ts';
import { utcDay } from '../core/dates.ts';
import { type SilentConfigs, silentConfigs, type YieldStore } from '../detections/yields.ts';
import { CHANGED, OPEN } from './insight-counters.ts';
import {
  type InsightsStores,
  insightsOrganization,
  type OpenWork,
  type OpenWorkStore,
  openWork,
  shiftDays,
  startOfDay,
  sumBetween,
} from './insights.ts';

export type HealthcheckStatus = 'ok' | 'warn' | 'fail';
export type HealthcheckResult = {
  key: HealthcheckKey;
  status: HealthcheckStatus;
  value: number;
  threshold: Threshold;
  detail: string;
};

const DAY_MS = 86_400_000;
/** The days the cancelled-takedown count looks back over, today included. */
const CANCELLED_WINDOW_DAYS = 7;
/** The dead-asset spike compares today with the daily mean of the days before it. */
const BASELINE_DAYS = 7;
/** Fewer dead assets than this in a day is never a spike, whatever the baseline. */
const MIN_SPIKE_COUNT = 10;

export const grade = (value: number, { warn, fail }: Threshold): HealthcheckStatus =>
  value >= fail ? 'fail' : value >= warn ? 'warn' : 'ok';

type Inputs = {
  work: OpenWork;
  settings: OrganizationSettings;
  detections: SilentConfigs;
  now: number;
  today: string;
};

const result = (key: HealthcheckKey, value: number, threshold: Threshold, detail: string): HealthcheckResult => ({
  key,
  status: grade(value, threshold),
  value,
  threshold,
  detail,
});

/** The creation days of open items and how many each holds, oldest first. */
const openByDay = (work: OpenWork, gauge: string): [string, number][] =>
  work.days.flatMap(({ day, counters }): [string, number][] => {
    const count = counters[gauge] ?? 0;
    return count > 0 ? [[day, count]] : [];
  });

const total = (work: OpenWork, gauge: string): number => openByDay(work, gauge).reduce((sum, [, n]) => sum + n, 0);

/** Whole days from the start of the UTC day an item was created to now. */
const ageInDays = (day: string, now: number): number => Math.max(0, Math.floor((now - startOfDay(day)) / DAY_MS));

const ageCheck = (key: HealthcheckKey, gauge: string, noun: string, { work, settings, now }: Inputs) => {
  const threshold = settings.thresholds[key];
  const open = openByDay(work, gauge);
  const oldest = open[0];
  const age = oldest === undefined ? 0 : ageInDays(oldest[0], now);
  const older = open.filter(([day]) => ageInDays(day, now) >= threshold.warn).reduce((sum, [, n]) => sum + n, 0);
  const detail =
    oldest === undefined
      ? `No ${noun}`
      : `${older} ${noun} ${threshold.warn} days old or older; the oldest was created ${age} days ago (${oldest[0]})`;
  return result(key, age, threshold, detail);
};

const CHECKS: Record<HealthcheckKey, (inputs: Inputs) => HealthcheckResult> = {
  'reviewing.backlog': ({ work, settings }) => {
    const pending = total(work, OPEN.pendingProposals);
    return result(
      'reviewing.backlog',
      pending,
      settings.thresholds['reviewing.backlog'],
      `${pending} proposals are pending review`,
    );
  },
  'reviewing.old-proposals': (inputs) =>
    ageCheck('reviewing.old-proposals', OPEN.pendingProposals, 'pending proposals', inputs),
  'takedowns.todo-volume': ({ work, settings }) => {
    const todo = total(work, OPEN.takedownsTodo);
    return result(
      'takedowns.todo-volume',
      todo,
      settings.thresholds['takedowns.todo-volume'],
      `${todo} takedowns are in TODO`,
    );
  },
  'takedowns.in-progress-volume': ({ work, settings }) => {
    const open = total(work, OPEN.takedownsInProgress);
    return result(
      'takedowns.in-progress-volume',
      open,
      settings.thresholds['takedowns.in-progress-volume'],
      `${open} takedowns are IN_PROGRESS`,
    );
  },
  'takedowns.stale-in-progress': (inputs) =>
    ageCheck('takedowns.stale-in-progress', OPEN.takedownsInProgress, 'IN_PROGRESS takedowns', inputs),
  'takedowns.cancelled-count': ({ work, settings, today }) => {
    const from = shiftDays(today, 1 - CANCELLED_WINDOW_DAYS);
    const cancelled = sumBetween(work, CHANGED.takedownsCancelled, from, today);
    return result(
      'takedowns.cancelled-count',
      cancelled,
      settings.thresholds['takedowns.cancelled-count'],
      `${cancelled} takedowns were last updated as CANCELLED from ${from} to ${today}`,
    );
  },
  'takedowns.automation-off': ({ settings, now }) => {
    const threshold = settings.thresholds['takedowns.automation-off'];
    const { active, automated, automationOffSince } = settings.services.takedowns;
    if (!active) return result('takedowns.automation-off', 0, threshold, 'The takedowns service is not active');
    if (automated) return result('takedowns.automation-off', 0, threshold, 'Automated takedowns are on');
    if (automationOffSince === null) {
      return result(
        'takedowns.automation-off',
        0,
        threshold,
        'Automated takedowns are off; since when is not recorded',
      );
    }
    const days = Math.max(0, Math.floor((now - Date.parse(automationOffSince)) / DAY_MS));
    return result('takedowns.automation-off', days, threshold, `Automated takedowns have been off for ${days} days`);
  },
  'assets.dead-asset-spike': ({ work, settings, today }) => {
    const multipliers = settings.thresholds['assets.dead-asset-spike'];
    const current = sumBetween(work, CHANGED.deadAssets, today, today);
    const before = sumBetween(work, CHANGED.deadAssets, shiftDays(today, -BASELINE_DAYS), shiftDays(today, -1));
    const baseline = before / BASELINE_DAYS;
    // A level must be reached and exceed its multiple of the baseline: near-zero baselines are not spikes.
    const level = (multiple: number) => Math.max(MIN_SPIKE_COUNT, Math.floor(multiple * baseline) + 1);
    const threshold = { warn: level(multipliers.warn), fail: level(multipliers.fail) };
    return result(
      'assets.dead-asset-spike',
      current,
      threshold,
      `${current} assets found dead today against a baseline of ${baseline.toFixed(2)} a day over the ${BASELINE_DAYS} days before`,
    );
  },
  'detections.silent-configs': ({ settings, detections: { enabled, silent, minResults, lookbackHours } }) =>
    result(
      'detections.silent-configs',
      silent.length,
      settings.thresholds['detections.silent-configs'],
      enabled === 0
        ? 'The organization has no enabled detection configs, so none is silent'
        : `${silent.length} of ${enabled} enabled detection configs found fewer than ${minResults} result${minResults === 1 ? '' : 's'} in the last ${lookbackHours} hours` +
            (silent.length === 0 ? '' : ` (configs ${silent.map((config) => config.configId).join(', ')})`),
    ),
  'organization.missing-contact-url': ({ settings }) => {
    const missing = settings.contactUrl === null || settings.contactUrl.trim() === '';
    return result(
      'organization.missing-contact-url',
      missing ? 1 : 0,
      settings.thresholds['organization.missing-contact-url'],
      missing ? 'The organization has no contact URL' : 'The organization has a contact URL',
    );
  },
};

/** Where the healthcheck routes read an organization's open work, settings and detection runs. */
export type HealthcheckSources = Pick<InsightsStores, 'directory'> & {
  settings: SettingsStore;
  work: OpenWorkStore;
  detections: YieldStore;
  now: () => number;
  /** The stage's thresholds (none: the built-in ones), under the organization's own. */
  thresholds?: () => StageThresholds;
};

/**
 * What the checks grade for the caller's organization (`slug` names it for a user key), now;
 * `tuning` sets the silent-configs check's window and minimum (default: 1 result in 168 hours).
 */
export const healthcheckInputs = async (
  { directory, settings, work, detections, now, thresholds }: HealthcheckSources,
  caller: Caller,
  slug: string | undefined,
  tuning: { minResults?: number; lookbackHours?: number } = {},
): Promise<Inputs> => {
  const orgId = await insightsOrganization(directory, caller, slug, 'healthchecks');
  const time = now();
  const [open, stored, silent] = await Promise.all([
    openWork(work, orgId),
    settings.find(orgId),
    silentConfigs(detections, orgId, time, tuning),
  ]);
  return {
    work: open,
    settings: effectiveSettings(stored, thresholds?.()),
    detections: silent,
    now: time,
    today: utcDay(time),
  };
};

/** The silent-configs check's minimum and window from a request body (`null` and absent mean the defaults). */
export const tuningOf = (body: { minResults?: number | null; lookbackHours?: number | null }) => ({
  ...(body.minResults == null ? {} : { minResults: body.minResults }),
  ...(body.lookbackHours == null ? {} : { lookbackHours: body.lookbackHours }),
});

/** What the checks grade for a request: its caller's organization, with the tuning its body carries. */
export const requestedInputs = (
  sources: HealthcheckSources,
  caller: Caller,
  body: { slug?: string; minResults?: number | null; lookbackHours?: number | null },
): Promise<Inputs> => healthcheckInputs(sources, caller, body.slug, tuningOf(body));

export const runHealthcheck = (key: HealthcheckKey, inputs: Inputs): HealthcheckResult => CHECKS[key](inputs);
export const runHealthchecks = (inputs: Inputs): HealthcheckResult[] =>
  HEALTHCHECK_KEYS.map((key) => CHECKS[key](inputs));

/** The check a route path names: `/healthchecks/<area>/<name>` serves the check `<area>.<name>`. */
export const healthcheckOfPath = (path: string): HealthcheckKey => {
  const match = /\/healthchecks\/([a-z-]+)\/([a-z-]+)$/.exec(path);
  const key =
    match === null ? undefined : HEALTHCHECK_KEYS.find((candidate) => candidate === `${match[1]}.${match[2]}`);
  if (key === undefined) throw new NotFoundError('Healthcheck not found');
  return key;
};
