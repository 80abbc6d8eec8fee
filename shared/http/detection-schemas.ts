import * as v from 'valibot';

import { SOURCE_KEYS } from '../domain/detections/sources.ts';
import { metricsDate } from '../domain/insights/metrics.ts';
import { boundedText, nullable, searchQuery, slug } from './schemas.ts';

const positive = (field: string) => {
  const message = `${field} must be a positive integer`;
  return v.pipe(v.number(message), v.safeInteger(message), v.minValue(1, message));
};

export const detectionSlug = slug('slug');
export const configId = positive('configId');
/** A source key as sent: any bounded string, so an unknown one is a 400 that names it. */
export const sourceKey = v.pipe(
  v.string('source must be a string'),
  v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, `source must be a detection source key such as ${SOURCE_KEYS.join(', ')}`),
);
/** Five fields of a cron expression (minute hour day-of-month month day-of-week). */
export const cron = v.pipe(
  v.string('cron must be a string'),
  v.maxLength(100, 'cron must be at most 100 characters'),
  v.regex(
    /^[\d*/,\-A-Za-z?]+(?:\s+[\d*/,\-A-Za-z?]+){4}$/,
    'cron must have five fields (minute hour day-of-month month day-of-week) of digits, names and * / , - only',
  ),
);
export const configObject = v.record(v.string(), v.unknown(), 'config must be an object');
export const title = boundedText('title', 1, 200);
export const description = boundedText('description', 0, 2000);
/** The window a config check looks back over, in hours. */
export const lookbackHoursValue = v.pipe(
  v.number('lookbackHours must be a positive integer'),
  v.safeInteger('lookbackHours must be a positive integer'),
  v.minValue(1, 'lookbackHours must be a positive integer'),
  v.maxValue(24 * 365, 'lookbackHours must be at most 8760'),
);
export const lookbackHours = v.optional(lookbackHoursValue);
const MIN_RESULTS = 'minResults must be a non-negative integer';
/** The results a config must have found within the window not to be silent. */
export const minResultsValue = v.pipe(v.number(MIN_RESULTS), v.safeInteger(MIN_RESULTS), v.minValue(0, MIN_RESULTS));
export const minResults = v.optional(minResultsValue);
export const includeDisabled = v.optional(v.boolean('includeDisabled must be a boolean'));

const FILTER_VALUES = 'value must be an array of at most 50 strings';
export const listFilter = v.object(
  {
    property: v.picklist(
      ['source', 'assetStatus', 'confidence', 'assetType'],
      'property must be one of source, assetStatus, confidence, assetType',
    ),
    operator: v.picklist(['in', 'notIn'], 'operator must be in or notIn'),
    value: v.pipe(
      v.array(v.pipe(v.string(FILTER_VALUES), v.maxLength(64, FILTER_VALUES)), FILTER_VALUES),
      v.maxLength(50, FILTER_VALUES),
    ),
  },
  'Each filter must be an object with property, operator and value',
);

export const listBody = v.object(
  {
    slug: detectionSlug,
    cursor: nullable(positive('cursor')),
    limit: v.optional(
      v.pipe(
        v.number('limit must be an integer between 1 and 100'),
        v.safeInteger('limit must be an integer between 1 and 100'),
        v.minValue(1, 'limit must be an integer between 1 and 100'),
        v.maxValue(100, 'limit must be an integer between 1 and 100'),
      ),
    ),
    filters: v.optional(
      v.pipe(v.array(listFilter, 'filters must be an array'), v.maxLength(10, 'filters holds at most 10 filters')),
    ),
    query: v.optional(searchQuery),
    startDate: v.optional(metricsDate),
    endDate: v.optional(metricsDate),
  },
  'Request body must be an object with slug',
);
