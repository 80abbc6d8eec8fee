import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { putProfile, settingsRepository } from '../../shared/db/account-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { HEALTHCHECK_KEYS, parseSettings } from '../../shared/domain/account/organization-settings.ts';
import { isWebUrl } from '../../shared/domain/core/web-url.ts';

export const INSIGHTS_USAGE = `  org threshold <org> <check> <warn> <fail>
                                       the organization's own levels for one healthcheck (${HEALTHCHECK_KEYS.length} checks:
                                       ${HEALTHCHECK_KEYS.slice(0, 3).join(', ')}, ...); 'org threshold <org> <check> default' drops them
  org settings <org> '<json>'          merges contactUrl, avatarUrl, services, healthcheckThresholds, sla, subscriptionStatus,
                                       obligatoryAdminApproval, integrations, legalDocuments, trademarkRegistrations
                                       into the organization's settings
  user profile <userId> '<json>'       sets email, fullName, avatarUrl of a user`;

const fail = (message: string): never => {
  throw new Error(`${message} (npm run admin -- --help lists the commands)`);
};

const level = (text: string | undefined, what: string): number => {
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value) || value < 0) {
    fail(`${what} must be a number of at least 0`);
  }
  return value;
};

const json = (text: string | undefined): unknown => {
  try {
    return JSON.parse(text ?? fail('Missing JSON'));
  } catch (error) {
    if (error instanceof SyntaxError) return fail(`Not JSON: ${error.message}`);
    throw error;
  }
};

/** `org threshold`, `org settings`, `user profile`: the operator's settings of the insights and account routes. */
export const insightsCommand = async (db: DynamoDBDocumentClient, table: string, words: string[]): Promise<string> => {
  const [noun, verb, subject, ...rest] = words;
  if (subject === undefined) return fail('Missing organization or user');
  if (noun === 'user' && verb === 'profile') {
    const profile = json(rest[0]);
    if (typeof profile !== 'object' || profile === null) return fail('The profile must be a JSON object');
    const { email, fullName, avatarUrl } = profile as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    if (text(avatarUrl) !== undefined && !isWebUrl(avatarUrl as string))
      fail('avatarUrl must be an absolute https URL');
    await putProfile(db, table, subject, { email: text(email), fullName: text(fullName), avatarUrl: text(avatarUrl) });
    return `Profile of ${subject} saved`;
  }
  if (!(await directoryRepository(db, table).findOrganization(subject))) fail(`Organization ${subject} does not exist`);
  const settings = settingsRepository(db, table);
  const current = await settings.find(subject);
  if (verb === 'settings') {
    const merged = parseSettings({ ...current, ...(json(rest[0]) as object) });
    await settings.put(subject, merged);
    return `Settings of ${subject} saved`;
  }
  const [check, warnText, failText] = rest;
  const key = HEALTHCHECK_KEYS.find((candidate) => candidate === check) ?? fail(`Unknown healthcheck: ${check}`);
  const { [key]: _, ...others } = current.healthcheckThresholds ?? {};
  if (warnText === 'default') {
    await settings.put(subject, { ...current, healthcheckThresholds: others });
    return `${key} of ${subject} follows the stage defaults`;
  }
  const threshold = { warn: level(warnText, 'warn'), fail: level(failText, 'fail') };
  if (threshold.warn > threshold.fail) fail('warn must not be above fail');
  await settings.put(subject, parseSettings({ ...current, healthcheckThresholds: { ...others, [key]: threshold } }));
  return `${key} of ${subject}: warn at ${threshold.warn}, fail at ${threshold.fail}`;
};
