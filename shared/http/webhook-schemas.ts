import * as v from 'valibot';
import { webUrl } from '../domain/core/web-url.ts';
import { URL_REFUSED, WEBHOOK_EVENTS, WEBHOOK_HEADER_NAMES } from '../domain/webhooks/webhooks.ts';
import { nullable, organizationSlug, perPage, plainString, queryCursor } from './schemas.ts';

const EVENTS_MESSAGE = `events must be a list of ${WEBHOOK_EVENTS.join(', ')}`;

const events = v.pipe(
  v.array(v.picklist(WEBHOOK_EVENTS, EVENTS_MESSAGE), EVENTS_MESSAGE),
  v.minLength(1, 'events must name at least one event'),
  v.transform((list) => [...new Set(list)]),
);
/** Text with no control characters and no unpaired surrogates, bounded. */
const text = (field: string, min: number, max: number) =>
  v.pipe(
    plainString(`${field} must be a string`, field),
    v.minLength(min, `${field} is required`),
    v.maxLength(max, `${field} must be at most ${max} characters`),
  );
const description = nullable(text('description', 0, 500));
/** Fixed headers a receiver may require (Google SecOps'): only these names, so at most 5 is always kept. */
const headers = v.pipe(
  v.strictObject(
    Object.fromEntries(WEBHOOK_HEADER_NAMES.map((name) => [name, v.optional(text('header value', 1, 1024))])),
    `headers may only be ${WEBHOOK_HEADER_NAMES.join(', ')}`,
  ),
  v.transform((record) =>
    Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined)),
  ),
);

export const webhookId = v.object({
  id: v.pipe(v.string('Webhook ID is required'), v.regex(/^[0-9a-f]{16}$/, 'Webhook ID is not valid')),
});

export const createWebhookBody = v.object(
  {
    // http only for a loopback receiver where the stage allows one; the receiver policy decides.
    url: webUrl('url', { http: true, message: URL_REFUSED }),
    description,
    events,
    headers: v.optional(headers),
    organizationSlug: nullable(organizationSlug),
  },
  'The body must be a JSON object with url and events',
);

export const updateWebhookBody = v.object(
  {
    enabled: v.optional(v.boolean('enabled must be a boolean')),
    events: v.optional(events),
    description,
    organizationSlug: nullable(organizationSlug),
  },
  'The body must be a JSON object',
);

/** A body that may be absent: it only names the organization, for a user key. */
export const organizationBody = v.optional(
  v.object({ organizationSlug: nullable(organizationSlug) }, 'The body must be a JSON object'),
  {},
);

export const organizationQuery = v.object({ organizationSlug: v.optional(organizationSlug) });

export const deliveriesQuery = v.object({
  organizationSlug: v.optional(organizationSlug),
  per_page: perPage(100, 20),
  next_page: queryCursor('next_page'),
});
