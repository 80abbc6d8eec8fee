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
/** One offender of an age or silence check: a pending proposal, an IN_PROGRESS takedown, a silent config. */
export type Finding = { id: number; kind: 'proposal' | 'takedown' | 'config'; createdAt: string; ageSeconds: number };
/**
 * A check's result in the published names (`id`, `severity`, `observed`, `findings`,
 * `suggestedAction`), with the earlier `key`, `status`, `value` and `detail` kept beside them for
 * one version (deprecated).
 */
export type HealthcheckResult = {
  id: HealthcheckKey;
  severity: HealthcheckStatus;
  observed: number;
  threshold: Threshold;
  findings: Finding[];
  suggestedAction: string;
  key: HealthcheckKey;
  status: HealthcheckStatus;
  value: number;
  detail: string;
};

/** At most this many offenders are listed, oldest first. */
export const MAX_FINDINGS = 20;
/** An open item of the organization by when it was created (its age counts from then). */
export type OpenItem = { id: number; createdAt: string };
/** Where the age checks read their oldest offenders: bounded reads, oldest first, never more than `limit`. */
export interface FindingStore {
  /** Pending proposals of reports created before `before` (ISO), oldest first. */
  pendingProposals(orgId: string, before: string, limit: number): Promise<OpenItem[]>;
  /** IN_PROGRESS takedowns created before `before` (ISO), oldest first. */
  inProgressTakedowns(orgId: string, before: string, limit: number): Promise<OpenItem[]>;
}

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
  /** The oldest offenders of the age checks (only the check that lists them reads them). */
  offenders: { proposals: () => Promise<Finding[]>; takedowns: () => Promise<Finding[]> };
  now: number;
  today: string;
};

/** What to do about a check that is not `ok`. */
const ACTIONS: Record<HealthcheckKey, string> = {
  'reviewing.backlog': 'Review the pending proposals, or add reviewers, until the backlog is below the warn level.',
  'reviewing.old-proposals': 'Review the oldest pending proposals first (they are the findings).',
  'takedowns.todo-volume': 'File the takedowns in TODO, or turn on automated takedowns for the surfaces they are on.',
  'takedowns.in-progress-volume':
    'Check the submission format and the providers of the IN_PROGRESS takedowns: a pile often means a vendor-side issue.',
  'takedowns.stale-in-progress': 'Follow up with the providers of the oldest IN_PROGRESS takedowns (the findings).',
  'takedowns.cancelled-count':
    'Look at why takedowns were cancelled: proposals of poor quality, or the status misused.',
  'takedowns.automation-off': 'Turn automated takedowns back on, or record why they stay off.',
  'assets.dead-asset-spike': 'Check the liveness checker: a spike of dead assets often means it is being blocked.',
  'detections.silent-configs': 'Check the silent configs (the findings): their terms, their schedule and their source.',
  'organization.missing-contact-url': 'Set the organization’s contact URL (its Slack or Telegram channel).',
};
const NO_ACTION = 'None: the check is ok.';

const result = (
  key: HealthcheckKey,
  value: number,
  threshold: Threshold,
  detail: string,
  findings: Finding[] = [],
): HealthcheckResult => {
  const severity = grade(value, threshold);
  return {
    id: key,
    severity,
    observed: value,
    threshold,
    findings,
    suggestedAction: severity === 'ok' ? NO_ACTION : ACTIONS[key],
    key,
    status: severity,
    value,
    detail,
  };
};

/** The creation days of open items and how many each holds, oldest first. */
const openByDay = (work: OpenWork, gauge: string): [string, number][] =>
  work.days.flatMap(({ day, counters }): [string, number][] => {
    const count = counters[gauge] ?? 0;
    return count > 0 ? [[day, count]] : [];
  });

const total = (work: OpenWork, gauge: string): number => openByDay(work, gauge).reduce((sum, [, n]) => sum + n, 0);

/** Whole days from the start of the UTC day an item was created to now. */
const ageInDays = (day: string, now: number): number => Math.max(0, Math.floor((now - startOfDay(day)) / DAY_MS));

const ageCheck = async (
  key: HealthcheckKey,
  gauge: string,
  noun: string,
  offenders: () => Promise<Finding[]>,
  { work, settings, now }: Inputs,
) => {
  const threshold = settings.thresholds[key];
  const open = openByDay(work, gauge);
  const oldest = open[0];
  const age = oldest === undefined ? 0 : ageInDays(oldest[0], now);
  const older = open.filter(([day]) => ageInDays(day, now) >= threshold.warn).reduce((sum, [, n]) => sum + n, 0);
  const detail =
    oldest === undefined
      ? `No ${noun}`
      : `${older} ${noun} ${threshold.warn} days old or older; the oldest was created ${age} days ago (${oldest[0]})`;
  return result(key, age, threshold, detail, older === 0 ? [] : await offenders());
};

/** A check of how many items a gauge holds open now, graded against the thresholds. */
const volumeCheck =
  (key: HealthcheckKey, gauge: string, detail: (count: number) => string) =>
  ({ work, settings }: Inputs): HealthcheckResult => {
    const open = total(work, gauge);
    return result(key, open, settings.thresholds[key], detail(open));
  };

const CHECKS: Record<HealthcheckKey, (inputs: Inputs) => HealthcheckResult | Promise<HealthcheckResult>> = {
  'reviewing.backlog': volumeCheck(
    'reviewing.backlog',
    OPEN.pendingProposals,
    (n) => `${n} proposals are pending review`,
  ),
  'reviewing.old-proposals': (inputs) =>
    ageCheck('reviewing.old-proposals', OPEN.pendingProposals, 'pending proposals', inputs.offenders.proposals, inputs),
  'takedowns.todo-volume': volumeCheck(
    'takedowns.todo-volume',
    OPEN.takedownsTodo,
    (n) => `${n} takedowns are in TODO`,
  ),
  'takedowns.in-progress-volume': volumeCheck(
    'takedowns.in-progress-volume',
    OPEN.takedownsInProgress,
    (n) => `${n} takedowns are IN_PROGRESS`,
  ),
  'takedowns.stale-in-progress': (inputs) =>
    ageCheck(
      'takedowns.stale-in-progress',
      OPEN.takedownsInProgress,
      'IN_PROGRESS takedowns',
      inputs.offenders.takedowns,
      inputs,
    ),
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
  'detections.silent-configs': ({ settings, now, detections: { enabled, silent, minResults, lookbackHours } }) =>
    result(
      'detections.silent-configs',
      silent.length,
      settings.thresholds['detections.silent-configs'],
      enabled === 0
        ? 'The organization has no enabled detection configs, so none is silent'
        : `${silent.length} of ${enabled} enabled detection configs found fewer than ${minResults} result${minResults === 1 ? '' : 's'} in the last ${lookbackHours} hours` +
            (silent.length === 0 ? '' : ` (configs ${silent.map((config) => config.configId).join(', ')})`),
      [...silent]
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.configId - b.configId))
        .slice(0, MAX_FINDINGS)
        .map((config) => finding(config.configId, 'config', config.createdAt, now)),
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

const finding = (id: number, kind: Finding['kind'], createdAt: string, now: number): Finding => ({
  id,
  kind,
  createdAt,
  ageSeconds: Math.max(0, Math.floor((now - Date.parse(createdAt)) / 1000)),
});

/**
 * The items whose creation day is at least `threshold.warn` days old (what the age check counts as
 * older), oldest first: items created before the start of the day after the last such day.
 */
const offendersOf =
  (
    store: FindingStore,
    read: keyof FindingStore,
    kind: Finding['kind'],
    orgId: string,
    warnDays: number,
    now: number,
  ) =>
  async (): Promise<Finding[]> => {
    const before = `${shiftDays(utcDay(now - warnDays * DAY_MS), 1)}T00:00:00.000Z`;
    const items = await store[read](orgId, before, MAX_FINDINGS);
    return items.map((item) => finding(item.id, kind, item.createdAt, now));
  };

/** Where the healthcheck routes read an organization's open work, settings, detection runs and offenders. */
export type HealthcheckSources = Pick<InsightsStores, 'directory'> & {
  settings: SettingsStore;
  work: OpenWorkStore;
  detections: YieldStore;
  findings: FindingStore;
  now: () => number;
  /** The stage's thresholds (none: the built-in ones), under the organization's own. */
  thresholds?: () => StageThresholds;
};

/**
 * What the checks grade for the caller's organization (`slug` names it for a user key), now;
 * `tuning` sets the silent-configs check's window and minimum (default: 1 result in 168 hours).
 */
export const healthcheckInputs = async (
  { directory, settings, work, detections, findings, now, thresholds }: HealthcheckSources,
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
  const effective = effectiveSettings(stored, thresholds?.());
  const warnDays = (key: HealthcheckKey) => effective.thresholds[key].warn;
  return {
    work: open,
    settings: effective,
    detections: silent,
    offenders: {
      proposals: offendersOf(
        findings,
        'pendingProposals',
        'proposal',
        orgId,
        warnDays('reviewing.old-proposals'),
        time,
      ),
      takedowns: offendersOf(
        findings,
        'inProgressTakedowns',
        'takedown',
        orgId,
        warnDays('takedowns.stale-in-progress'),
        time,
      ),
    },
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

export const runHealthcheck = async (key: HealthcheckKey, inputs: Inputs): Promise<HealthcheckResult> =>
  CHECKS[key](inputs);

/** The check a route path names: `/healthchecks/<area>/<name>` serves the check `<area>.<name>`. */
export const healthcheckOfPath = (path: string): HealthcheckKey => {
  const match = /\/healthchecks\/([a-z-]+)\/([a-z-]+)$/.exec(path);
  const key =
    match === null ? undefined : HEALTHCHECK_KEYS.find((candidate) => candidate === `${match[1]}.${match[2]}`);
  if (key === undefined) throw new NotFoundError('Healthcheck not found');
  return key;
};
