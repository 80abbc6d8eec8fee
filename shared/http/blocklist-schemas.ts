import * as v from 'valibot';
import { PREFIX_PATTERN } from '../domain/blocklist/expressions.ts';
import { jsonSchemaTwin } from '../schema-twin.ts';

const ALGO = 'algoVersion must be a positive integer';
const PREFIXES = 'prefixes must be an array of 1 to 1000 prefixes';
const PREFIX = 'Each prefix must be 8 lower-case hex digits';

/** The body of POST /asset/blocklist/confirm. */
export const confirmBody = v.object(
  {
    algoVersion: v.pipe(v.number(ALGO), v.integer(ALGO), v.minValue(1, ALGO), v.maxValue(255, ALGO)),
    prefixes: v.pipe(
      v.array(v.pipe(v.string(PREFIX), v.regex(PREFIX_PATTERN, PREFIX)), PREFIXES),
      v.minLength(1, PREFIXES),
      v.maxLength(1000, PREFIXES),
      jsonSchemaTwin({ uniqueItems: true }),
      v.check((prefixes) => new Set(prefixes).size === prefixes.length, 'prefixes must not repeat a prefix'),
    ),
  },
  'Request body must be an object with algoVersion and prefixes',
);

/** An artifact's token: 32 lower-case hex digits. */
export const ARTIFACT_TOKEN = /^[0-9a-f]{32}$/;
