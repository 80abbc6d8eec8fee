import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { SOURCE_CATALOGUE } from '../../../shared/domain/detections/source-catalogue.ts';
import { PERMUTATION_FAMILIES, SOURCES, validateConfig } from '../../../shared/domain/detections/sources.ts';

/** The config schemas `/detection/sources` answered when they were written by hand as JSON Schema. */
const DOMAIN_PATTERN =
  '^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$';
const minScore = { type: 'number', minimum: 0, maximum: 1, default: 0.3 };
const BEFORE: Record<string, object> = {
  DNS_TWIST: {
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
  CERTSTREAM: {
    type: 'object',
    additionalProperties: false,
    properties: {
      logs: {
        type: 'array',
        description:
          'Logs to poll: RFC 6962 log base URLs (https), or static-CT logs as {monitoringUrl, kind: "static"}; the log list’s when omitted.',
        maxItems: 10,
        items: {
          anyOf: [
            { type: 'string', maxLength: 512, pattern: '^https://[^\\s]+$' },
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                monitoringUrl: { type: 'string', maxLength: 512, pattern: '^https://[^\\s]+$' },
                kind: { const: 'static' },
              },
              required: ['monitoringUrl', 'kind'],
            },
          ],
        },
      },
      maxEntriesPerRun: { type: 'integer', minimum: 1, maximum: 1000000, default: 100000 },
      minScore,
    },
  },
  ASSET_CHECK: { type: 'object', additionalProperties: false, properties: { minScore } },
  EXTERNAL: { type: 'object', additionalProperties: false, properties: {} },
};

/** Drops what only labels the schema (`$schema`, an empty `required`) and writes each pattern as a RegExp source. */
const normalized = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(normalized);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(
        ([key, value]) => key !== '$schema' && !(key === 'required' && Array.isArray(value) && value.length === 0),
      )
      .map(([key, value]) => [key, key === 'pattern' ? new RegExp(String(value)).source : normalized(value)]),
  );
};

describe('the catalogue’s config schemas', () => {
  it('answers each source with the JSON Schema it answered before, converted from the schema that validates', () => {
    expect(SOURCE_CATALOGUE.map((source) => source.key)).toEqual(SOURCES.map((source) => source.key));
    for (const source of SOURCE_CATALOGUE) {
      expect(normalized(source.configSchema), source.key).toEqual(normalized(BEFORE[source.key]));
      expect(source).not.toHaveProperty('config');
    }
  });

  it('accepts and refuses the same configs as the validation does', () => {
    const ajv = new Ajv({ strict: false });
    const samples: Record<string, unknown[]> = {
      DNS_TWIST: [
        {},
        { domains: ['acme.com', 'acme.co.uk'], families: ['homoglyph'], tlds: ['xyz'], maxPermutations: 20000 },
        { domains: ['Acme.com'] },
        { domains: Array(21).fill('acme.com') },
        { families: ['typo'] },
        { tlds: ['x'] },
        { maxPermutations: 20001 },
        { maxPermutations: 2.5 },
        { query: 'x' },
        [],
        'acme.com',
      ],
      CERTSTREAM: [
        { logs: ['https://ct.example/log/'], maxEntriesPerRun: 5, minScore: 1 },
        { logs: ['http://ct.example/'] },
        { logs: [`https://${'a'.repeat(510)}`] },
        { logs: [{ monitoringUrl: 'https://mon.ct.example/2026h2/', kind: 'static' }] },
        { logs: [{ monitoringUrl: 'http://mon.ct.example/', kind: 'static' }] },
        { logs: [{ monitoringUrl: 'https://mon.ct.example/', kind: 'rfc6962' }] },
        { logs: [{ monitoringUrl: 'https://mon.ct.example/', kind: 'static', extra: 1 }] },
        { minScore: -0.1 },
        { maxEntriesPerRun: '5' },
      ],
      ASSET_CHECK: [{ minScore: 0.5 }, { minScore: 2 }, { minScore: null }],
      EXTERNAL: [{}, { minScore: 0.5 }, null],
    };
    for (const source of SOURCE_CATALOGUE) {
      const check = ajv.compile(source.configSchema);
      const validated = SOURCES.find((s) => s.key === source.key);
      if (validated === undefined) throw new Error(`${source.key} missing`);
      for (const config of samples[source.key] ?? []) {
        const accepted = (() => {
          try {
            validateConfig(validated, config);
            return true;
          } catch {
            return false;
          }
        })();
        expect(accepted, `${source.key} ${JSON.stringify(config)}`).toBe(check(config));
      }
    }
  });
});
