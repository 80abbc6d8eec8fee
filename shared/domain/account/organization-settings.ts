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

/** The published subscription statuses; an INACTIVE organization is never listed. */
export const SUBSCRIPTION_STATUSES = ['PROSPECT', 'POC', 'ACTIVE', 'INTEGRATION', 'INACTIVE'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
/** The published service keys of an organization. */
export const SERVICE_KEYS = [
  'reporting',
  'reviewing',
  'protection',
  'takedowns',
  'detection',
  'darkWebMonitoring',
] as const;
export type ServiceKey = (typeof SERVICE_KEYS)[number];
export const INTEGRATION_FLAGS = ['slack', 'discord', 'vercel', 'intercom', 'moderation'] as const;

const flag = (field: string) => v.optional(v.boolean(`${field} must be a boolean`));
const text = (field: string, max: number) =>
  v.pipe(v.string(`${field} must be a string`), v.minLength(1, `${field} must not be empty`), v.maxLength(max));
/** A legal document on file: its name and where it is (absent or null: none on file). */
const legalDocument = (field: string) =>
  v.optional(v.nullable(v.object({ fileName: text(`${field}.fileName`, 256), fileUrl: webUrl(`${field}.fileUrl`) })));
/** **Decision:** the published page names an entry's parts (issuing office, number, certificate PDF), not its fields. */
const trademarkRegistration = v.object({
  issuingOffice: text('issuingOffice', 128),
  registrationNumber: text('registrationNumber', 64),
  certificateUrl: v.optional(v.nullable(webUrl('certificateUrl'))),
});

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
        darkWebMonitoring: v.optional(SERVICE),
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
    subscriptionStatus: v.optional(
      v.picklist(SUBSCRIPTION_STATUSES, `subscriptionStatus must be one of ${SUBSCRIPTION_STATUSES.join(', ')}`),
    ),
    obligatoryAdminApproval: v.optional(v.boolean('obligatoryAdminApproval must be a boolean')),
    integrations: v.optional(
      v.object({
        slack: flag('slack'),
        discord: flag('discord'),
        vercel: flag('vercel'),
        intercom: flag('intercom'),
        moderation: flag('moderation'),
        telegram: v.optional(
          v.object({
            connected: v.boolean('telegram.connected must be a boolean'),
            groupCount: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
          }),
        ),
      }),
    ),
    legalDocuments: v.optional(
      v.object({
        letterOfAuthorization: legalDocument('letterOfAuthorization'),
        powerOfAttorney: legalDocument('powerOfAttorney'),
      }),
    ),
    trademarkRegistrations: v.optional(v.pipe(v.array(trademarkRegistration), v.maxLength(100))),
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

type LegalDocument = { present: boolean; fileName: string | null; fileUrl: string | null };
export type OrganizationSettings = {
  contactUrl: string | null;
  avatarUrl: string | null;
  subscriptionStatus: SubscriptionStatus;
  obligatoryAdminApproval: boolean;
  services: {
    reporting: boolean;
    reviewing: boolean;
    protection: boolean;
    detection: boolean;
    darkWebMonitoring: boolean;
    takedowns: { active: boolean; automated: boolean; automationOffSince: string | null };
  };
  integrations: Record<(typeof INTEGRATION_FLAGS)[number], boolean> & {
    telegram: { connected: boolean; groupCount: number };
  };
  legalDocuments: { letterOfAuthorization: LegalDocument; powerOfAttorney: LegalDocument };
  trademarkRegistrations: { issuingOffice: string; registrationNumber: string; certificateUrl: string | null }[];
  thresholds: Record<HealthcheckKey, Threshold>;
  sla: { reviewSeconds: number; takedownSeconds: number };
};

const DAY_SECONDS = 86_400;
/** The stage's queue SLAs: an item waiting longer breaches. */
export const DEFAULT_SLA = { reviewSeconds: 7 * DAY_SECONDS, takedownSeconds: 7 * DAY_SECONDS };

/** The settings in force: what the organization set over the stage's thresholds (`stage`) over the built-in defaults. */
const documentOf = (document: { fileName: string; fileUrl: string } | null | undefined): LegalDocument =>
  document ? { present: true, ...document } : { present: false, fileName: null, fileUrl: null };

export const effectiveSettings = (input: SettingsInput = {}, stage: StageThresholds = {}): OrganizationSettings => ({
  contactUrl: input.contactUrl ?? null,
  avatarUrl: input.avatarUrl ?? null,
  subscriptionStatus: input.subscriptionStatus ?? 'ACTIVE',
  obligatoryAdminApproval: input.obligatoryAdminApproval ?? false,
  integrations: {
    ...(Object.fromEntries(INTEGRATION_FLAGS.map((flag) => [flag, input.integrations?.[flag] ?? false])) as Record<
      (typeof INTEGRATION_FLAGS)[number],
      boolean
    >),
    telegram: {
      connected: input.integrations?.telegram?.connected ?? false,
      groupCount: input.integrations?.telegram?.groupCount ?? 0,
    },
  },
  legalDocuments: {
    letterOfAuthorization: documentOf(input.legalDocuments?.letterOfAuthorization),
    powerOfAttorney: documentOf(input.legalDocuments?.powerOfAttorney),
  },
  trademarkRegistrations: (input.trademarkRegistrations ?? []).map((entry) => ({
    ...entry,
    certificateUrl: entry.certificateUrl ?? null,
  })),
  services: {
    reporting: input.services?.reporting?.active ?? true,
    reviewing: input.services?.reviewing?.active ?? true,
    protection: input.services?.protection?.active ?? true,
    detection: input.services?.detection?.active ?? false,
    darkWebMonitoring: input.services?.darkWebMonitoring?.active ?? false,
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
