import * as v from 'valibot';
import { BadRequestError } from '../../errors.ts';

export const SOURCE_KEYS = ['DNS_TWIST', 'CERTSTREAM', 'ASSET_CHECK', 'EXTERNAL'] as const;
export type SourceKey = (typeof SOURCE_KEYS)[number];

export type Source = {
  key: SourceKey;
  name: string;
  description: string;
  mode: 'pull' | 'push';
  /** Where its configs live: every source here runs per organization, none system-wide. */
  scopes: readonly ('organization' | 'global')[];
  assetTypes: readonly string[];
  brandScoped: boolean;
  /** What a config's `config` must satisfy; the catalogue answers it as JSON Schema. */
  config: v.GenericSchema;
  defaultCron: string | null;
  enabledByDefault: boolean;
};

export const PERMUTATION_FAMILIES = [
  'addition',
  'bitsquatting',
  'homoglyph',
  'hyphenation',
  'insertion',
  'omission',
  'repetition',
  'replacement',
  'subdomain',
  'transposition',
  'vowel-swap',
  'tld-swap',
] as const;
export type PermutationFamily = (typeof PERMUTATION_FAMILIES)[number];

const HTTPS_URL = /^https:\/\/[^\s]+$/;
const DOMAIN_PATTERN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** Optional settings: absent ones keep their defaults at run time, so a config is stored as sent. */
const list = <T extends v.GenericSchema>(item: T, maxItems: number, description: string) =>
  v.optional(v.pipe(v.array(item), v.maxLength(maxItems), v.description(description)));
const text = (maxLength: number, pattern: RegExp) => v.pipe(v.string(), v.maxLength(maxLength), v.regex(pattern));
const integer = (minimum: number, maximum: number, fallback: number) =>
  v.optional(v.pipe(v.number('must be an integer'), v.integer(), v.minValue(minimum), v.maxValue(maximum)), fallback);
const score = v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), 0.3);

export const SOURCES: readonly Source[] = [
  {
    key: 'DNS_TWIST',
    name: 'DNS Twist',
    description:
      'Lookalike permutations of the brands’ domains (typos, homoglyphs, swapped endings) that are registered in DNS.',
    mode: 'pull',
    scopes: ['organization'],
    assetTypes: ['URL'],
    brandScoped: true,
    config: v.strictObject({
      domains: list(
        text(253, DOMAIN_PATTERN),
        20,
        'Domains to permute; the organization’s allowlisted domains when omitted.',
      ),
      families: list(
        v.picklist(PERMUTATION_FAMILIES, `must be one of ${PERMUTATION_FAMILIES.join(', ')}`),
        PERMUTATION_FAMILIES.length,
        'Permutation families to generate; all when omitted.',
      ),
      tlds: list(text(24, /^[a-z]{2,24}$/), 50, 'Endings tried by the TLD swap.'),
      maxPermutations: integer(1, 20000, 5000),
    }),
    defaultCron: '0 6 * * *',
    enabledByDefault: false,
  },
  {
    key: 'CERTSTREAM',
    name: 'Certstream',
    description: 'Names in new certificates of certificate-transparency logs matched against the brand terms.',
    mode: 'pull',
    scopes: ['organization'],
    assetTypes: ['URL'],
    brandScoped: true,
    config: v.strictObject({
      logs: list(
        v.union(
          [text(512, HTTPS_URL), v.strictObject({ monitoringUrl: text(512, HTTPS_URL), kind: v.literal('static') })],
          'must be an https URL or {monitoringUrl, kind: "static"}',
        ),
        10,
        'Logs to poll: RFC 6962 log base URLs (https), or static-CT logs as {monitoringUrl, kind: "static"}; the log list’s when omitted.',
      ),
      maxEntriesPerRun: integer(1, 1000000, 100000),
      minScore: score,
    }),
    defaultCron: '*/15 * * * *',
    enabledByDefault: false,
  },
  {
    key: 'ASSET_CHECK',
    name: 'Asset Check',
    description:
      'Unknown content checked, submitted or scanned that scores as a lookalike of the brands (once the organization creates a config).',
    mode: 'push',
    scopes: ['organization'],
    assetTypes: ['URL', 'PAGE'],
    brandScoped: false,
    config: v.strictObject({ minScore: score }),
    defaultCron: null,
    // Push sources feed only organizations with an enabled config of theirs, like the pull sources.
    enabledByDefault: false,
  },
  {
    key: 'EXTERNAL',
    name: 'External',
    description: 'Content pushed by the organization with /asset/submit (once the organization creates a config).',
    mode: 'push',
    scopes: ['organization'],
    assetTypes: ['URL', 'PAGE', 'ADDRESS'],
    brandScoped: false,
    config: v.strictObject({}),
    defaultCron: null,
    // Push sources feed only organizations with an enabled config of theirs, like the pull sources.
    enabledByDefault: false,
  },
];

export const sourceOf = (key: string): Source | undefined => SOURCES.find((source) => source.key === key);

const ARTICLES: Record<string, string> = { array: 'an', object: 'an', integer: 'an' };

/** What an issue's value must be, without its path (valibot builds the path as the issue rises). */
const expectation = (issue: v.BaseIssue<unknown>): string => {
  switch (issue.type) {
    case 'strict_object':
      // An unknown key: the issue's path ends at it and expects nothing.
      if (issue.expected === 'never') return 'is not a known setting';
      return 'must be an object';
    case 'max_length':
      return Array.isArray(issue.input)
        ? `must have at most ${issue.requirement} items`
        : `must be at most ${issue.requirement} characters`;
    case 'min_value':
      return `must be at least ${issue.requirement}`;
    case 'max_value':
      return `must be at most ${issue.requirement}`;
    case 'integer':
      return 'must be an integer';
    case 'regex':
      return 'is not in the expected form';
    default:
      return `must be ${ARTICLES[issue.type] ?? 'a'} ${issue.type}`;
  }
};

/**
 * The URLs in a (valid) config that the service will call, each with its path in the config:
 * a CERTSTREAM config's logs. Each must pass the egress policy when it is configured.
 */
export const outboundUrlsOf = (source: Source, config: Record<string, unknown>): { path: string; url: string }[] =>
  source.key === 'CERTSTREAM' && Array.isArray(config.logs)
    ? config.logs.map((log: unknown, i) =>
        typeof log === 'object' && log !== null && 'monitoringUrl' in log
          ? { path: `config.logs.${i}.monitoringUrl`, url: String(log.monitoringUrl) }
          : { path: `config.logs.${i}`, url: String(log) },
      )
    : [];

/** Checks a config against its source's schema: 400 naming the failing path (`config.domains.0`). */
export const validateConfig = (source: Source, config: unknown): Record<string, unknown> => {
  const refuse = (path: string, expected: string) => {
    const message = `${path} ${expected}`;
    return new BadRequestError(message, { issues: [{ message, path: `body.${path}` }] });
  };
  // valibot's objects take arrays too; a config is a JSON object.
  if (Array.isArray(config)) throw refuse('config', 'must be an object');
  const issue = v.safeParse(source.config, config, { abortEarly: true, message: expectation }).issues?.[0];
  if (issue) {
    const dotPath = v.getDotPath(issue);
    throw refuse(dotPath === null ? 'config' : `config.${dotPath}`, issue.message);
  }
  // Stored as sent (no defaults filled in): defaults apply at run time.
  return config as Record<string, unknown>;
};
