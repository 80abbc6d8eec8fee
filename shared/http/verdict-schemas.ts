import * as v from 'valibot';
import { metricsDate } from '../domain/insights/metrics.ts';
import { EXPORT_STATUSES, VERSION_PATTERN } from '../domain/verdict-feed/index.ts';
import { assetType, cursorToken, nullable } from './schemas.ts';

/* The bodies of the verdict feeds clients sync from; only those routes load them. */

const BULK_PER_PAGE = 'per_page must be an integer between 1 and 10000';
/** The `per_page` of the verdict feeds clients copy in bulk: a JSON integer from 1 to 10,000. */
const bulkPerPage = (fallback: number) =>
  v.optional(
    v.pipe(
      v.number(BULK_PER_PAGE),
      v.integer(BULK_PER_PAGE),
      v.minValue(1, BULK_PER_PAGE),
      v.maxValue(10_000, BULK_PER_PAGE),
    ),
    fallback,
  );
const VERSION = 'since must be a version from GET /asset/blocklist/version or POST /asset/changelog';

/** The body of POST /asset/changelog. */
export const changelogBody = v.object(
  {
    since: nullable(v.pipe(v.string(VERSION), v.regex(VERSION_PATTERN, VERSION))),
    type: nullable(assetType),
    per_page: bulkPerPage(1000),
    next_page: nullable(
      v.pipe(
        v.string('next_page must be a string'),
        v.nonEmpty('next_page must not be empty'),
        v.maxLength(128, 'next_page is not a page of this changelog'),
      ),
    ),
  },
  'Request body must be an object',
);

/** The body of POST /asset/list: `type` is required, the dates are metrics bounds (read as their UTC day). */
export const verdictListBody = v.object(
  {
    type: assetType,
    status: v.optional(v.picklist(EXPORT_STATUSES, `status must be one of ${EXPORT_STATUSES.join(', ')}`), 'BLOCKED'),
    startDate: v.optional(metricsDate),
    endDate: v.optional(metricsDate),
    per_page: bulkPerPage(100),
    next_page: nullable(cursorToken),
  },
  'Request body must be an object with a type',
);
