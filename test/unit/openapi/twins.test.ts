import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { findTwins, toDocumentSchema } from '../../../infra/openapi/convert.ts';
import { loadRoutes } from '../../../infra/openapi/document.ts';

const ajv = new Ajv2020({ strict: false });
addFormats.default(ajv);

const twinned = (await loadRoutes()).flatMap(({ route, request }) =>
  Object.entries(request).flatMap(([part, schema]) =>
    schema ? findTwins(schema, `${route.name} ${part}`).twinned : [],
  ),
);

const astral = '😀';
const DATES = [
  '2026-01-01',
  '2024-02-29',
  '2026-02-29',
  '2026-13-01',
  '2026-1-01',
  '0001-01-01',
  '2026-01-01T00:00:00Z',
  '2026-01-01t10:00z',
  '2026-01-01T10:00Z',
  '2026-01-01T23:59:59.123456+05:30',
  '2026-01-01T24:00:00Z',
  '2026-01-01T10:60:00Z',
  '2026-01-01T10:00:60Z',
  '2026-12-31T23:59:60Z',
  '2026-01-01T10:00:00',
  '2026-01-01T10:00:00+24:00',
  '2026-01-01T10:00:00-23:59',
  '2026-01-01 10:00:00Z',
  '2026-02-30T00:00:00Z',
  '2024-02-29T12:00:00+01:00',
  '2100-02-29',
  '2000-02-29',
  '2026-04-31',
];
const NAMES = [
  '',
  ' ',
  '\t\n',
  'a',
  ' a ',
  'Wallets',
  'a'.repeat(255),
  'a'.repeat(256),
  ` ${'a'.repeat(255)} `,
  astral.repeat(255),
  astral.repeat(256),
  '\u00a0x\ufeff',
  `a${' '.repeat(300)}b`,
];
const BODIES = [
  {},
  { name: 'x' },
  { description: null },
  { groupId: null },
  { groupId: 3 },
  { other: 1 },
  { name: 5 },
  { description: 'd', name: '' },
];
const URLS = [
  'https://example.com/a.png',
  'HTTPS://EXAMPLE.COM',
  'http://127.0.0.1:8080/hook',
  'javascript:alert(1)',
  'data:text/html,x',
  'file:///etc/passwd',
  'ftp://example.com',
  ' https://example.com',
  'https://user:pw@example.com',
  'https:example.com',
];
const CORPUS: unknown[] = [...DATES, ...NAMES, ...URLS, ...BODIES, 7, null, undefined, ['2026-01-01']];

const disagreements = (schema: v.GenericSchema, inputs: readonly unknown[]) => {
  const validate = ajv.compile(toDocumentSchema(schema));
  return inputs.filter((input) => v.safeParse(schema, input).success !== validate(input));
};

describe('JSON Schema twins of checks', () => {
  it('exist for every check of every request schema', () => {
    expect(twinned.map(({ path }) => path)).toEqual(
      expect.arrayContaining(['create-asset-group body.name', 'get-metrics queryStringParameters.startDate']),
    );
  });

  it.each(twinned)('accept and reject what the check does: $path', ({ schema }) => {
    expect(disagreements(schema, CORPUS)).toEqual([]);
  });

  it.each(twinned)('agree with the check on random text: $path', ({ schema }) => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.stringMatching(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,4})?)?(Z|[+-]\d{2}:\d{2})?)?$/),
    );
    const seed = 20261123;
    const inputs = fc.sample(text, { numRuns: 200, seed });

    expect(disagreements(schema, inputs), `seed ${seed}`).toEqual([]);
  });
});
