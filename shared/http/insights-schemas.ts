import * as v from 'valibot';
import { SERVICE_KEYS, SUBSCRIPTION_STATUSES } from '../domain/account/organization-settings.ts';
import { webUrl } from '../domain/core/web-url.ts';
import { BREAKDOWN_METRICS } from '../domain/insights/insight-counters.ts';
import { metricsDate } from '../domain/insights/metrics.ts';
import { lookbackHoursValue, minResultsValue } from './detection-schemas.ts';
import { boundedText, MAX_CONTENT_LENGTH, nullable, plainString, slug } from './schemas.ts';

/* The bodies of the insights and account routes; only those routes load them. */

/** The organization a user key reads; an organization key may omit it (or send its own). */
const organization = { slug: nullable(slug('slug')) };
const dates = { startDate: nullable(metricsDate), endDate: nullable(metricsDate) };

/** A body every field of which is optional: absent, `{}` and `null` fields all mean the defaults. */
const optionalBody = <E extends v.ObjectEntries>(entries: E) =>
  v.optional(v.object(entries, 'The body must be a JSON object'), {} as v.InferInput<v.ObjectSchema<E, undefined>>);

export const metricsSummaryBody = optionalBody({ ...organization, ...dates, brandSlug: nullable(slug('brandSlug')) });
export const metricsFoundBody = optionalBody({ ...organization, ...dates });
export const metricsBreakdownBody = v.object(
  {
    ...organization,
    ...dates,
    by: v.picklist(['day', 'type', 'source', 'brand'], 'by must be one of day, type, source, brand'),
    metric: v.picklist(BREAKDOWN_METRICS, `metric must be one of ${BREAKDOWN_METRICS.join(', ')}`),
  },
  'by and metric are required',
);
const WINDOW_HOURS = 'windowHours must be an integer between 1 and 8760';
/** The queue snapshot's body: the organization, and the staleness window in hours (default 168). */
export const queuesSnapshotBody = optionalBody({
  ...organization,
  windowHours: nullable(
    v.pipe(
      v.number(WINDOW_HOURS),
      v.safeInteger(WINDOW_HOURS),
      v.minValue(1, WINDOW_HOURS),
      v.maxValue(8760, WINDOW_HOURS),
    ),
  ),
});

/** A healthcheck's body: the organization, and the silent-configs check's minimum and window (as the config check's). */
export const healthcheckBody = optionalBody({
  ...organization,
  minResults: nullable(minResultsValue),
  lookbackHours: nullable(lookbackHoursValue),
});

const assetList = (field: string) =>
  nullable(
    v.pipe(
      v.array(
        v.pipe(
          plainString(`${field} must hold strings`, field),
          v.trim(),
          v.nonEmpty(`${field} must not hold empty strings`),
          v.maxLength(MAX_CONTENT_LENGTH, `${field} entries must be at most ${MAX_CONTENT_LENGTH} characters`),
        ),
        `${field} must be an array of strings`,
      ),
      v.minLength(1, `${field} must hold 1 to 100 assets`),
      v.maxLength(100, `${field} must hold 1 to 100 assets`),
    ),
  );
/** `assets` (or the published `assetContents`): the contents to look up. */
export const reportsSearchBody = v.object(
  {
    ...organization,
    organizationSlug: nullable(slug('organizationSlug')),
    assets: assetList('assets'),
    assetContents: assetList('assetContents'),
  },
  'assets is required',
);

const flag = (field: string) => nullable(v.boolean(`${field} must be a boolean`));
export const organizationReportsBody = optionalBody({
  ...organization,
  organizationSlug: nullable(slug('organizationSlug')),
  ...dates,
  needsCustomerReview: flag('needsCustomerReview'),
  onlyRejected: flag('onlyRejected'),
  limit: nullable(
    v.pipe(
      v.number('limit must be an integer between 1 and 100'),
      v.safeInteger('limit must be an integer between 1 and 100'),
      v.minValue(1, 'limit must be an integer between 1 and 100'),
      v.maxValue(100, 'limit must be an integer between 1 and 100'),
    ),
  ),
  cursor: nullable(v.pipe(v.string('cursor must be a string'), v.maxLength(4096, 'Invalid cursor'))),
});

export const profileUpdateBody = v.object(
  {
    fullName: v.optional(boundedText('fullName', 1, 256)),
    avatarUrl: v.optional(v.nullable(webUrl('avatarUrl'))),
  },
  'The body must be a JSON object',
);
export const emptyBody = optionalBody({});

/** The statuses `POST /user/orgs` filters by (an INACTIVE organization is never listed). */
const LISTED_STATUSES = SUBSCRIPTION_STATUSES.filter((status) => status !== 'INACTIVE');
const STATUS_FILTER = `subscriptionStatus must be an array of ${LISTED_STATUSES.join(', ')}`;
const SERVICES_FILTER = `services must be an array of ${SERVICE_KEYS.join(', ')}, or an object of them each with active (and automated, takedowns only)`;
const activeOnly = v.optional(v.strictObject({ active: v.optional(v.boolean()) }, SERVICES_FILTER), undefined);
/** `POST /user/orgs`: the published filters, each optional. */
export const userOrgsBody = optionalBody({
  subscriptionStatus: nullable(
    v.pipe(
      v.array(v.picklist(LISTED_STATUSES, STATUS_FILTER), STATUS_FILTER),
      v.minLength(1, STATUS_FILTER),
      v.maxLength(LISTED_STATUSES.length * 2, STATUS_FILTER),
    ),
  ),
  services: nullable(
    v.union(
      [
        v.pipe(
          v.array(v.picklist(SERVICE_KEYS, SERVICES_FILTER), SERVICES_FILTER),
          v.maxLength(SERVICE_KEYS.length * 2, SERVICES_FILTER),
        ),
        v.strictObject(
          {
            reporting: activeOnly,
            reviewing: activeOnly,
            protection: activeOnly,
            detection: activeOnly,
            darkWebMonitoring: activeOnly,
            takedowns: v.optional(
              v.strictObject({ active: v.optional(v.boolean()), automated: v.optional(v.boolean()) }, SERVICES_FILTER),
            ),
          },
          SERVICES_FILTER,
        ),
      ],
      SERVICES_FILTER,
    ),
  ),
  obligatoryAdminApproval: flag('obligatoryAdminApproval'),
  query: nullable(boundedText('query', 1, 256)),
});
