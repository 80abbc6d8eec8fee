import { BadRequestError } from '../../errors.ts';

export const SOURCE_KEYS = ['DNS_TWIST', 'CERTSTREAM', 'ASSET_CHECK', 'EXTERNAL'] as const;
export type SourceKey = (typeof SOURCE_KEYS)[number];

/** The subset of JSON Schema the catalogue's config schemas use, and `validateConfig` enforces. */
export type ConfigSchema = {
  type: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, ConfigSchema>;
  additionalProperties?: false;
  items?: ConfigSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  enum?: readonly string[];
  pattern?: string;
  default?: unknown;
};

export type Source = {
  key: SourceKey;
  name: string;
  description: string;
  mode: 'pull' | 'push';
  assetTypes: readonly string[];
  brandScoped: boolean;
  configSchema: ConfigSchema;
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

const DOMAIN_PATTERN =
  '^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$';

export const SOURCES: readonly Source[] = [
  {
    key: 'DNS_TWIST',
    name: 'DNS Twist',
    description:
      'Lookalike permutations of the brands’ domains (typos, homoglyphs, swapped endings) that are registered in DNS.',
    mode: 'pull',
    assetTypes: ['URL'],
    brandScoped: true,
    configSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        domains: {
          type: 'array',
          description: 'Domains to permute; the organization’s allowlisted domains when omitted.',
          maxItems: 20,
          items: { type: 'string', maxLength: 253, pattern: DOMAIN_PATTERN },
        },
        families: {
          type: 'array',
          description: 'Permutation families to generate; all when omitted.',
          maxItems: PERMUTATION_FAMILIES.length,
          items: { type: 'string', enum: PERMUTATION_FAMILIES },
        },
        tlds: {
          type: 'array',
          description: 'Endings tried by the TLD swap.',
          maxItems: 50,
          items: { type: 'string', maxLength: 24, pattern: '^[a-z]{2,24}$' },
        },
        maxPermutations: { type: 'integer', minimum: 1, maximum: 20000, default: 5000 },
      },
    },
    defaultCron: '0 6 * * *',
    enabledByDefault: false,
  },
  {
    key: 'CERTSTREAM',
    name: 'Certstream',
    description: 'Names in new certificates of certificate-transparency logs matched against the brand terms.',
    mode: 'pull',
    assetTypes: ['URL'],
    brandScoped: true,
    configSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        logs: {
          type: 'array',
          description: 'RFC 6962 log base URLs (https) to poll.',
          maxItems: 10,
          items: { type: 'string', maxLength: 512, pattern: '^https://[^\\s]+$' },
        },
        maxEntriesPerRun: { type: 'integer', minimum: 1, maximum: 1000000, default: 100000 },
        minScore: { type: 'number', minimum: 0, maximum: 1, default: 0.3 },
      },
    },
    defaultCron: '*/15 * * * *',
    enabledByDefault: false,
  },
  {
    key: 'ASSET_CHECK',
    name: 'Asset Check',
    description:
      'Unknown content checked, submitted or scanned that scores as a lookalike of the brands (once the organization creates a config).',
    mode: 'push',
    assetTypes: ['URL', 'PAGE'],
    brandScoped: false,
    configSchema: {
      type: 'object',
      additionalProperties: false,
      properties: { minScore: { type: 'number', minimum: 0, maximum: 1, default: 0.3 } },
    },
    defaultCron: null,
    // Push sources feed only organizations with an enabled config of theirs, like the pull sources.
    enabledByDefault: false,
  },
  {
    key: 'EXTERNAL',
    name: 'External',
    description: 'Content pushed by the organization with /asset/submit (once the organization creates a config).',
    mode: 'push',
    assetTypes: ['URL', 'PAGE', 'ADDRESS'],
    brandScoped: false,
    configSchema: { type: 'object', additionalProperties: false, properties: {} },
    defaultCron: null,
    // Push sources feed only organizations with an enabled config of theirs, like the pull sources.
    enabledByDefault: false,
  },
];

export const sourceOf = (key: string): Source | undefined => SOURCES.find((source) => source.key === key);

const typeOk = (schema: ConfigSchema, value: unknown): boolean => {
  switch (schema.type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      return typeof value === schema.type;
  }
};

/** The first violation of `schema` by `value`, as `{path, message}`; undefined when it conforms. */
const violation = (
  schema: ConfigSchema,
  value: unknown,
  path: string,
): { path: string; message: string } | undefined => {
  if (!typeOk(schema, value))
    return { path, message: `${path} must be ${schema.type === 'integer' ? 'an' : 'a'} ${schema.type}` };
  if (schema.type === 'object') {
    const record = value as Record<string, unknown>;
    for (const [name, child] of Object.entries(record)) {
      const childSchema = schema.properties?.[name];
      if (childSchema === undefined) {
        if (schema.additionalProperties === false)
          return { path: `${path}.${name}`, message: `${path}.${name} is not a known setting` };
        continue;
      }
      const found = violation(childSchema, child, `${path}.${name}`);
      if (found) return found;
    }
  }
  if (schema.type === 'array') {
    const items = value as unknown[];
    if (schema.maxItems !== undefined && items.length > schema.maxItems) {
      return { path, message: `${path} must have at most ${schema.maxItems} items` };
    }
    for (const [i, item] of items.entries()) {
      const found = schema.items ? violation(schema.items, item, `${path}.${i}`) : undefined;
      if (found) return found;
    }
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      return { path, message: `${path} must be at least ${schema.minimum}` };
    if (schema.maximum !== undefined && value > schema.maximum)
      return { path, message: `${path} must be at most ${schema.maximum}` };
  }
  if (typeof value === 'string') {
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      return { path, message: `${path} must be at most ${schema.maxLength} characters` };
    }
    if (schema.enum && !schema.enum.includes(value))
      return { path, message: `${path} must be one of ${schema.enum.join(', ')}` };
    if (schema.pattern && !new RegExp(schema.pattern).test(value))
      return { path, message: `${path} is not in the expected form` };
  }
  return undefined;
};

/**
 * The URLs in a (valid) config that the service will call, each with its path in the config:
 * a CERTSTREAM config's logs. Each must pass the egress policy when it is configured.
 */
export const outboundUrlsOf = (source: Source, config: Record<string, unknown>): { path: string; url: string }[] =>
  source.key === 'CERTSTREAM' && Array.isArray(config.logs)
    ? config.logs.map((url, i) => ({ path: `config.logs.${i}`, url: String(url) }))
    : [];

/** Checks a config against its source's schema: 400 naming the failing path (`config.domains.0`). */
export const validateConfig = (source: Source, config: unknown): Record<string, unknown> => {
  const found = violation(source.configSchema, config, 'config');
  if (found)
    throw new BadRequestError(found.message, { issues: [{ message: found.message, path: `body.${found.path}` }] });
  return config as Record<string, unknown>;
};
