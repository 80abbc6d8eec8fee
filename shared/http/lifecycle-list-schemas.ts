import * as v from 'valibot';
import { metricsDate } from '../domain/insights/metrics.ts';
import { LIVENESS_STATUSES, TAKEDOWN_STATUSES } from '../domain/lifecycle/activity.ts';
import { assetType, boundedText, nullable, organizationSlug, queryCursor } from './schemas.ts';

/* The queries and bodies of the lifecycle listings; only the listing routes load them. */

const flag = (field: string) =>
  v.pipe(
    v.picklist(['true', 'false', '1', '0'], `${field} must be true or false`),
    v.transform((text) => text === 'true' || text === '1'),
  );
const cursor = v.pipe(v.string('next_page must be a string'), v.maxLength(4096, 'Invalid next_page cursor'));

/** `GET /organization/reports`. */
export const reportsQuery = v.object({
  limit: v.pipe(
    v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'limit must be an integer between 1 and 100')), '50'),
    v.transform(Number),
    v.minValue(1, 'limit must be an integer between 1 and 100'),
    v.maxValue(100, 'limit must be an integer between 1 and 100'),
  ),
  cursor: queryCursor('cursor'),
  startDate: v.optional(metricsDate),
  endDate: v.optional(metricsDate),
  onlyRejected: v.optional(flag('onlyRejected')),
  needsCustomerReview: v.optional(flag('needsCustomerReview')),
});

const perPage = v.optional(
  v.pipe(
    v.number('per_page must be an integer between 1 and 100'),
    v.safeInteger('per_page must be an integer between 1 and 100'),
    v.minValue(1, 'per_page must be an integer between 1 and 100'),
    v.maxValue(100, 'per_page must be an integer between 1 and 100'),
  ),
  10,
);
const sorting = <K extends string>(keys: readonly [K, ...K[]]) =>
  nullable(
    v.pipe(
      v.array(
        v.object(
          {
            key: v.picklist(keys, `sorting key must be one of ${keys.join(', ')}`),
            direction: v.optional(v.picklist(['asc', 'desc'], 'sorting direction must be asc or desc'), 'asc'),
          },
          `each sorting entry must be an object with a key: one of ${keys.join(', ')}`,
        ),
        'sorting must be an array',
      ),
      v.maxLength(4, 'sorting holds at most 4 entries'),
    ),
  );
const listFields = {
  query: nullable(boundedText('query', 0, 256)),
  startDate: nullable(metricsDate),
  endDate: nullable(metricsDate),
  assetType: nullable(
    v.pipe(
      v.array(assetType, 'assetType must be an array of asset types'),
      v.maxLength(20, 'assetType holds at most 20 types'),
    ),
  ),
  organizationSlug: nullable(organizationSlug),
  per_page: perPage,
  next_page: nullable(cursor),
};

/** `POST /threats/list`. */
export const threatsBody = v.optional(
  v.object(
    { ...listFields, sorting: sorting(['id', 'blockedAt', 'content', 'type']) },
    'Request body must be an object',
  ),
  {},
);

/** `POST /takedowns/list`. */
export const takedownsBody = v.optional(
  v.object(
    {
      ...listFields,
      takedownStatus: nullable(
        v.array(
          v.picklist(TAKEDOWN_STATUSES, `takedownStatus holds only ${TAKEDOWN_STATUSES.join(', ')}`),
          'takedownStatus must be an array of statuses',
        ),
      ),
      livenessStatus: nullable(
        v.array(
          v.picklist(LIVENESS_STATUSES, `livenessStatus holds only ${LIVENESS_STATUSES.join(', ')}`),
          'livenessStatus must be an array of statuses',
        ),
      ),
      sorting: sorting(['updatedAt', 'createdAt']),
    },
    'Request body must be an object',
  ),
  {},
);
