import * as v from 'valibot';
import { webUrl } from '../core/web-url.ts';

export const HEALTHCHECK_KEYS = [
  'reviewing.backlog',
  'reviewing.old-proposals',
  'takedowns.todo-volume',
  'takedowns.in-progress-volume',
  'takedowns.stale-in-progress',
  'takedowns.cancelled-count',
  'takedowns.automation-off',
  'assets.dead-asset-spike',
  'detections.silent-configs',
  'organization.missing-contact-url',
] as const;
export type HealthcheckKey = (typeof HEALTHCHECK_KEYS)[number];
export type Threshold = { warn: number; fail: number };

/**
 * The built-in thresholds: a value at or above `fail` fails, at or above `warn` warns. Ages are in
 * days; the dead-asset spike's levels are multiples of its baseline. A stage may replace any of them
 * (`healthcheckThresholds`, see `parseStageThresholds`), and an organization may override any of
 * those (fixture `healthcheckThresholds`, `npm run admin -- org threshold`).
 */
export const DEFAULT_THRESHOLDS: Record<HealthcheckKey, Threshold> = {
  'reviewing.backlog': { warn: 50, fail: 200 },
  'reviewing.old-proposals': { warn: 7, fail: 14 },
  'takedowns.todo-volume': { warn: 25, fail: 100 },
  'takedowns.in-progress-volume': { warn: 50, fail: 200 },
  'takedowns.stale-in-progress': { warn: 7, fail: 14 },
  'takedowns.cancelled-count': { warn: 3, fail: 10 },
  'takedowns.automation-off': { warn: 30, fail: 60 },
  'assets.dead-asset-spike': { warn: 3, fail: 5 },
  'detections.silent-configs': { warn: 1, fail: 1 },
  'organization.missing-contact-url': { warn: 1, fail: 2 },
};

const SERVICE = v.object({ active: v.boolean('active must be a boolean') });

/** Thresholds by healthcheck, any subset: an organization's overrides, or the stage's defaults. */
const thresholdsSchema = v.record(
  v.picklist(HEALTHCHECK_KEYS, `healthcheck must be one of ${HEALTHCHECK_KEYS.join(', ')}`),
  v.pipe(
    v.object({
      warn: v.pipe(v.number('warn must be a number'), v.minValue(0, 'warn must not be negative')),
      fail: v.pipe(v.number('fail must be a number'), v.minValue(0, 'fail must not be negative')),
    }),
    v.check((threshold) => threshold.warn <= threshold.fail, 'warn must not be above fail'),
  ),
  'thresholds must be an object of healthcheck keys',
);
export type StageThresholds = Partial<Record<HealthcheckKey, Threshold>>;

/**
 * The stage's healthcheck thresholds, as JSON text (`{"reviewing.backlog": {"warn": 10, "fail": 40}}`):
 * they replace the built-in defaults they name, under any organization's own. Unset or empty: none.
 * Throws an error naming what is wrong.
 */
export const parseStageThresholds = (text: string | undefined): StageThresholds => {
  if (text === undefined || text.trim() === '') return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('healthcheck thresholds must be JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error('healthcheck thresholds must be an object of healthcheck keys');
  }
  const result = v.safeParse(thresholdsSchema, json);
  if (result.success) return result.output as StageThresholds;
  const issue = result.issues[0];
  const path = issue.path?.map((item) => String(item.key)).join('.');
  throw new Error(`healthcheck thresholds${path ? ` ${path}` : ''}: ${issue.message}`);
};

/** What an organization's operator sets besides its name and flags; every field optional. */
export const settingsSchema = v.object(
  {
    contactUrl: v.optional(v.nullable(webUrl('contactUrl'))),
    avatarUrl: v.optional(v.nullable(webUrl('avatarUrl'))),
    services: v.optional(
      v.object({
        reporting: v.optional(SERVICE),
        reviewing: v.optional(SERVICE),
        protection: v.optional(SERVICE),
        detection: v.optional(SERVICE),
        takedowns: v.optional(
          v.object({
            active: v.boolean('active must be a boolean'),
            automated: v.optional(v.boolean('automated must be a boolean')),
            /** When automated takedowns were switched off (ISO 8601); absent while they are on. */
            automationOffSince: v.optional(
              v.nullable(v.pipe(v.string(), v.isoTimestamp('automationOffSince must be an ISO 8601 timestamp'))),
            ),
          }),
        ),
      }),
    ),
    healthcheckThresholds: v.optional(thresholdsSchema),
    sla: v.optional(
      v.object({
        reviewSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
        takedownSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      }),
    ),
  },
  'settings must be an object',
);
export type SettingsInput = v.InferOutput<typeof settingsSchema>;

export type OrganizationSettings = {
  contactUrl: string | null;
  avatarUrl: string | null;
  services: {
    reporting: boolean;
    reviewing: boolean;
    protection: boolean;
    detection: boolean;
    takedowns: { active: boolean; automated: boolean; automationOffSince: string | null };
  };
  thresholds: Record<HealthcheckKey, Threshold>;
  sla: { reviewSeconds: number; takedownSeconds: number };
};

const DAY_SECONDS = 86_400;
/** The stage's queue SLAs: an item waiting longer breaches. */
export const DEFAULT_SLA = { reviewSeconds: 7 * DAY_SECONDS, takedownSeconds: 7 * DAY_SECONDS };

/** The settings in force: what the organization set over the stage's thresholds (`stage`) over the built-in defaults. */
export const effectiveSettings = (input: SettingsInput = {}, stage: StageThresholds = {}): OrganizationSettings => ({
  contactUrl: input.contactUrl ?? null,
  avatarUrl: input.avatarUrl ?? null,
  services: {
    reporting: input.services?.reporting?.active ?? true,
    reviewing: input.services?.reviewing?.active ?? true,
    protection: input.services?.protection?.active ?? true,
    detection: input.services?.detection?.active ?? false,
    takedowns: {
      active: input.services?.takedowns?.active ?? false,
      automated: input.services?.takedowns?.automated ?? false,
      automationOffSince: input.services?.takedowns?.automationOffSince ?? null,
    },
  },
  thresholds: { ...DEFAULT_THRESHOLDS, ...stage, ...(input.healthcheckThresholds ?? {}) },
  sla: { ...DEFAULT_SLA, ...(input.sla ?? {}) },
});

export interface SettingsStore {
  /** The organization's own settings as stored (empty when none). */
  find(orgId: string): Promise<SettingsInput>;
  put(orgId: string, settings: SettingsInput): Promise<void>;
}

/** Validates settings from a fixture or the operator CLI. */
export const parseSettings = (input: unknown): SettingsInput => {
  const result = v.safeParse(settingsSchema, input);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue === undefined ? undefined : v.getDotPath(issue);
  throw new Error(`Invalid organization settings${path ? ` at ${path}` : ''}: ${issue?.message ?? 'invalid'}`);
};
