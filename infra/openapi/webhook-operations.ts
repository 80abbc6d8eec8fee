import * as v from 'valibot';
import { DELIVERY_STATUSES, WEBHOOK_EVENTS } from '../../shared/domain/webhooks/webhooks.ts';
import type { OperationDoc } from './operation-doc.ts';

const timestamp = v.pipe(v.string(), v.isoTimestamp());
const webhook = v.object({
  id: v.string(),
  url: v.string(),
  description: v.nullable(v.string()),
  events: v.array(v.picklist(WEBHOOK_EVENTS)),
  enabled: v.boolean(),
  createdAt: timestamp,
});
const delivery = v.object({
  id: v.string(),
  event: v.string(),
  status: v.picklist(DELIVERY_STATUSES),
  attempts: v.number(),
  responseStatus: v.nullable(v.number()),
  createdAt: timestamp,
  updatedAt: timestamp,
});
const EXAMPLE = {
  id: '3f9c2a7b1d0e4c58',
  url: 'https://siem.example.com/chainpatrol',
  description: 'SIEM',
  events: ['asset.status-updated'],
  enabled: true,
  createdAt: '2026-11-21T10:00:00.000Z',
};
const DELIVERY_EXAMPLE = {
  id: 'dlv_0f1e2d3c4b5a69788796a5b4',
  event: 'asset.status-updated',
  status: 'SUCCESS',
  attempts: 1,
  responseStatus: 200,
  createdAt: '2026-11-21T10:00:01.000Z',
  updatedAt: '2026-11-21T10:00:01.000Z',
};
const ACCESS =
  'An organization key with `write`, or a user key with `organizationSlug` (body, or query for GET and DELETE) naming an organization it is an ACTIVE member of.';

export const WEBHOOK_OPERATIONS: Record<string, OperationDoc> = {
  'create-webhook': {
    summary: 'Create a webhook',
    description: `${ACCESS} The URL must be public https (its host must not resolve to a loopback, private, link-local, CGNAT, multicast or metadata address); at most 10 webhooks per organization. The answer holds \`secret\` (64 hex characters), shown this once: each delivery carries \`X-ChainPatrol-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>\`, \`X-ChainPatrol-Event-Id\` (the same on every retry) and \`X-ChainPatrol-Timestamp\` (Unix seconds), and the Standard Webhooks headers \`webhook-id\` (the event id), \`webhook-timestamp\` (Unix seconds of the attempt) and \`webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>\`, the key being the UTF-8 bytes of \`secret\`; \`standardWebhooksSecret\` (\`whsec_\` + base64 of those bytes) is that key as Standard Webhooks libraries take it, which also reject a delivery whose timestamp is over 5 minutes old. A receiver has 5 s to answer 2xx; otherwise the delivery is retried 3 times with exponential backoff, then FAILURE. The values of \`headers\` (\`X-goog-api-key\`, \`X-Webhook-Access-Key\`) are sent with every delivery, stored sealed like the secret and never shown in an answer.`,
    tag: 'Webhooks',
    requestExample: {
      url: 'https://siem.example.com/chainpatrol',
      description: 'SIEM',
      events: ['asset.status-updated'],
    },
    responses: {
      200: {
        description: 'The webhook, with its signing secret',
        body: v.object({ ...webhook.entries, secret: v.string(), standardWebhooksSecret: v.string() }),
        example: {
          ...EXAMPLE,
          secret: 'a'.repeat(64),
          standardWebhooksSecret: `whsec_${Buffer.from('a'.repeat(64)).toString('base64')}`,
        },
      },
    },
  },
  'list-webhooks': {
    summary: 'List webhooks',
    description: `${ACCESS} Every webhook of the organization, without secrets.`,
    tag: 'Webhooks',
    responses: {
      200: {
        description: 'The webhooks',
        body: v.object({ webhooks: v.array(webhook) }),
        example: { webhooks: [EXAMPLE] },
      },
    },
  },
  'update-webhook': {
    summary: 'Update a webhook',
    description: `${ACCESS} Changes \`enabled\`, \`events\` or \`description\`; a disabled webhook gets no new events.`,
    tag: 'Webhooks',
    requestExample: { enabled: false },
    responses: {
      200: { description: 'The webhook', body: webhook, example: { ...EXAMPLE, enabled: false } },
      404: { description: 'Webhook not found', error: true },
    },
  },
  'delete-webhook': {
    summary: 'Delete a webhook',
    description: `${ACCESS} Its deliveries not yet made are dropped (recorded as FAILURE).`,
    tag: 'Webhooks',
    responses: {
      200: {
        description: 'Deleted',
        body: v.object({ success: v.boolean(), id: v.string() }),
        example: { success: true, id: EXAMPLE.id },
      },
      404: { description: 'Webhook not found', error: true },
    },
  },
  'test-webhook': {
    summary: 'Send a test event',
    description: `${ACCESS} Queues a \`debug.test\` event (\`{"event":"debug.test","created_at":…,"data":{}}\`) to the webhook, delivered like any other.`,
    tag: 'Webhooks',
    responses: {
      200: {
        description: 'The queued delivery',
        body: delivery,
        example: { ...DELIVERY_EXAMPLE, event: 'debug.test', status: 'PENDING', attempts: 0, responseStatus: null },
      },
      404: { description: 'Webhook not found', error: true },
    },
  },
  'list-webhook-deliveries': {
    summary: 'List deliveries of a webhook',
    description: `${ACCESS} Newest first, \`per_page\` (1–100, default 20) at a time; \`next_page\` is null at the end. Deliveries are kept 7 days.`,
    tag: 'Webhooks',
    responses: {
      200: {
        description: 'The deliveries',
        body: v.object({ deliveries: v.array(delivery), next_page: v.nullable(v.string()) }),
        example: { deliveries: [DELIVERY_EXAMPLE], next_page: null },
      },
      404: { description: 'Webhook not found', error: true },
    },
  },
};
