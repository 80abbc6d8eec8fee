import { createHash, createHmac, randomBytes } from 'node:crypto';
import { backoffDelay } from '../core/retry.ts';

export const WEBHOOK_EVENTS = [
  'asset.status-updated',
  'asset.status-escalated',
  'organization.threat-detection-added',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const WEBHOOK_HEADER_NAMES = ['X-goog-api-key', 'X-Webhook-Access-Key'] as const;
export const MAX_WEBHOOKS_PER_ORGANIZATION = 10;
export const DELIVERY_STATUSES = ['PENDING', 'IN_PROGRESS', 'SUCCESS', 'FAILURE'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type Webhook = {
  id: string;
  orgId: string;
  url: string;
  description: string | null;
  events: WebhookEvent[];
  /** The fixed headers' values as stored; undefined when the webhook has none. */
  headers: StoredHeaders | undefined;
  enabled: boolean;
  createdAt: string;
  /** The signing secret as stored: sealed, never the secret itself. */
  sealedSecret: string;
};

/**
 * Fixed header values are credentials of the receiver: stored sealed like the signing secret (one
 * sealed JSON object of name → value). `clear` is how webhooks created before that hold them;
 * they are still read, and `npm run admin -- migrate webhooks` seals them.
 */
export type StoredHeaders = { sealed: string } | { clear: Record<string, string> };

/** What a client sees of a webhook: never its secret, nor its fixed headers' values. */
export const webhookView = (hook: Webhook) => ({
  id: hook.id,
  url: hook.url,
  description: hook.description,
  events: hook.events,
  enabled: hook.enabled,
  createdAt: hook.createdAt,
});

/** 32 random bytes as hex: the key receivers sign with, exactly this string. */
export const newWebhookSecret = (): string => randomBytes(32).toString('hex');
export const newWebhookId = (): string => randomBytes(8).toString('hex');

/** One event as generated: its id is stable (the same change always makes the same id), its body fixed. */
export type WebhookEventRecord = {
  eventId: string;
  type: WebhookEvent | 'debug.test';
  /** Where the event sorts among the webhook's deliveries: the log position of its change. */
  position: string;
  body: string;
};

/** A stable id of an event of `type` for one organization, from what made it (a change's version, a review). */
export const eventIdOf = (type: string, orgId: string, source: string): string =>
  `evt_${createHash('sha256').update(`${type}\u0000${orgId}\u0000${source}`).digest('hex').slice(0, 32)}`;

export type StatusUpdated = { assetId: number; type: string; content: string; status: string };
export type StatusEscalated = {
  assetId: number;
  content: string;
  type: string;
  proposalId: number;
  organizationId: number;
};

/*
 * The published payloads, field for field: `debug.test` names its event `event`, the others
 * `type`, and the escalation example spells the asset type in lower case.
 */
export const debugTestBody = (createdAt: string): string =>
  JSON.stringify({ event: 'debug.test', created_at: createdAt, data: {} });

export const statusUpdatedBody = (createdAt: string, data: StatusUpdated): string =>
  JSON.stringify({
    type: 'asset.status-updated',
    created_at: createdAt,
    data: { asset_id: data.assetId, type: data.type, content: data.content, status: data.status },
  });

export const statusEscalatedBody = (createdAt: string, data: StatusEscalated): string =>
  JSON.stringify({
    type: 'asset.status-escalated',
    created_at: createdAt,
    data: {
      asset_id: data.assetId,
      content: data.content,
      type: data.type.toLowerCase(),
      status: 'BLOCKED',
      proposal_id: data.proposalId,
      organization_id: data.organizationId,
    },
  });

export const threatDetectionAddedBody = (
  createdAt: string,
  data: { organizationId: number; detectionResultId: number },
): string =>
  JSON.stringify({
    type: 'organization.threat-detection-added',
    created_at: createdAt,
    data: { organization_id: data.organizationId, threat_detection_result_id: data.detectionResultId },
  });

/** `sha256=<hex HMAC-SHA256(secret, body)>`: the secret string as shown is the key, the raw body the data. */
export const signatureOf = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

/** The Standard Webhooks signing key: the same bytes as the published signature's, the UTF-8 of the secret as shown. */
export const standardWebhooksSecretOf = (secret: string): string =>
  `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;

/**
 * The signature headers of one attempt: the published ones, and Standard Webhooks' (`webhook-id` the
 * event id, which has no `.`; `v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>`), both timed now.
 */
export const signedHeaders = (secret: string, eventId: string, body: string, nowMs: number): Record<string, string> => {
  const timestamp = String(Math.floor(nowMs / 1000));
  const standard = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${eventId}.${timestamp}.${body}`, 'utf8')
    .digest('base64');
  return {
    'X-ChainPatrol-Signature': signatureOf(secret, body),
    'X-ChainPatrol-Event-Id': eventId,
    'X-ChainPatrol-Timestamp': timestamp,
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${standard}`,
  };
};

/** Retries after the first attempt; a delivery is attempted at most this many times plus one. */
export const MAX_RETRIES = 3;

/**
 * The wait before retry `attempt` (1-based): `base · 2^(attempt-1)`, plus up to half of it as
 * jitter, so each wait is longer than the one before whatever the jitter drew.
 */
export const backoffMs = (baseMs: number, attempt: number, random: () => number = Math.random): number =>
  Math.round(backoffDelay({ firstMs: baseMs, jitter: 'added' }, attempt, random));

/** The answer to a receiver URL the egress policy refuses, at configuration. */
export const URL_REFUSED = 'Webhook URL must be a public https URL';
