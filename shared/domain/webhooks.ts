import { createHash, createHmac, randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { BadRequestError } from '../errors.ts';

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
  headers: Record<string, string>;
  enabled: boolean;
  createdAt: string;
  /** The signing secret as stored: sealed, never the secret itself. */
  sealedSecret: string;
};

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

/** Retries after the first attempt; a delivery is attempted at most this many times plus one. */
export const MAX_RETRIES = 3;

/**
 * The wait before retry `attempt` (1-based): `base · 2^(attempt-1)`, plus up to half of it as
 * jitter, so each wait is longer than the one before whatever the jitter drew.
 */
export const backoffMs = (baseMs: number, attempt: number, random: () => number = Math.random): number => {
  const wait = baseMs * 2 ** (attempt - 1);
  return Math.round(wait + wait * 0.5 * random());
};

// --- Receiver addresses -------------------------------------------------------------------

const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud metadata service among them
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local, the metadata service's IPv6 address among them
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 of any IPv4 address: refused rather than decoded
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IPv4 address written as IPv6 (`::ffff:a.b.c.d`, also in hex) as the IPv4 address it is. */
const unmapped = (address: string): string => {
  const lower = address.toLowerCase();
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1] as string;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = Number.parseInt(hex[1] as string, 16);
    const low = Number.parseInt(hex[2] as string, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return address;
};

export type AddressPolicy = { allowLoopback: boolean };

/** Whether a receiver may be reached at `address`: a public unicast address, or loopback where allowed. */
export const isAllowedAddress = (address: string, policy: AddressPolicy): boolean => {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return false;
  const kind = family === 4 ? 'ipv4' : 'ipv6';
  if (policy.allowLoopback && LOOPBACK.check(plain, kind)) return true;
  return !REFUSED.check(plain, kind);
};

export const URL_REFUSED = 'Webhook URL must be a public https URL';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);

/**
 * The receiver URL as a URL, when its form is acceptable: https with a host name or a public
 * address, no credentials; with `allowLoopback`, also `http://127.0.0.1:<port>` or
 * `http://localhost:<port>`. Where its name resolves to is checked separately (and again at
 * every delivery, on the address connected to).
 */
export const parseReceiverUrl = (text: string, policy: AddressPolicy): URL => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BadRequestError(URL_REFUSED);
  }
  if (url.username !== '' || url.password !== '') throw new BadRequestError(URL_REFUSED);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopbackHttp = policy.allowLoopback && url.protocol === 'http:' && LOOPBACK_HOSTS.has(host) && url.port !== '';
  if (url.protocol !== 'https:' && !loopbackHttp) throw new BadRequestError(URL_REFUSED);
  if (url.protocol === 'https:' && (host === 'localhost' || host.endsWith('.localhost'))) {
    throw new BadRequestError(URL_REFUSED);
  }
  if (isIP(host) !== 0 && !isAllowedAddress(host, { allowLoopback: loopbackHttp })) {
    throw new BadRequestError(URL_REFUSED);
  }
  return url;
};

/** Resolves a host name to every address it has now. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** Refuses a URL whose host resolves to any address a receiver may not have. */
export const assertPublicReceiver = async (text: string, policy: AddressPolicy, resolve: Resolver): Promise<URL> => {
  const url = parseReceiverUrl(text, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopbackHttp = url.protocol === 'http:';
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : await resolve(host);
  } catch {
    throw new BadRequestError(URL_REFUSED);
  }
  if (addresses.length === 0 || addresses.some((a) => !isAllowedAddress(a, { allowLoopback: loopbackHttp }))) {
    throw new BadRequestError(URL_REFUSED);
  }
  return url;
};
