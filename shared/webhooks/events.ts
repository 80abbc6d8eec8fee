import type { VerdictOrigin } from '../db/verdict-change.ts';
import type { DetectionFeedEntry, LoggedChange } from '../db/webhook-repository.ts';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import { assetIdOf, organizationIdOf } from '../domain/lifecycle/reports.ts';
import { LOG_TIMING, positionAt, statusOf, timeOf } from '../domain/verdict-feed/index.ts';
import {
  eventIdOf,
  statusEscalatedBody,
  statusUpdatedBody,
  threatDetectionAddedBody,
  type Webhook,
  type WebhookEvent,
  type WebhookEventRecord,
} from '../domain/webhooks/webhooks.ts';

/** Every record (threat, takedown, report) any organization has of one content. */
export type AssetRecords = { allByAsset(assetId: number): Promise<ActivityRecord[]> };

/**
 * How long before its verdict change a review may have been stamped: the review is stamped once,
 * then its transaction may be rebuilt (and its change re-stamped) while other writers contend.
 */
const REVIEW_LEAD_MS = 60_000;

const subscribers = (hooks: readonly Webhook[], event: WebhookEvent) => {
  const byOrg = new Map<string, Webhook[]>();
  for (const hook of hooks) {
    if (!hook.enabled || !hook.events.includes(event)) continue;
    byOrg.set(hook.orgId, [...(byOrg.get(hook.orgId) ?? []), hook]);
  }
  return byOrg;
};

export type Planned = { hook: Webhook; event: WebhookEventRecord };

/**
 * The events one verdict-log entry makes, for the webhooks that exist now. `asset.status-updated`
 * goes to every organization whose content it is when the entry changes the content's status:
 * the organizations that made the change (an allowlisting added or removed, a threat approved or
 * withdrawn: the entry names them), those with records of the content (threats, takedowns; every
 * page of them), and those that `recent` changes of the content named while it was blocked (whose
 * records the index may not show yet). Once an organization allowlists content its status is
 * ALLOWED until the last allowlisting goes, and that removal names its organization, so no other
 * organization's allowlisting needs looking up. `asset.status-escalated` goes to an organization
 * whose change it was, for each of its proposals of the content approved by that change.
 */
export const eventsOfChange = async (
  deps: { records: AssetRecords },
  change: LoggedChange,
  hooks: readonly Webhook[],
  recent: readonly VerdictOrigin[] = [],
): Promise<Planned[]> => {
  const updated = subscribers(hooks, 'asset.status-updated');
  const escalated = subscribers(hooks, 'asset.status-escalated');
  const statusChanged = statusOf(change.bits) !== statusOf(change.previousBits);
  const escalating = change.origins.filter((origin) => escalated.has(origin.orgId));
  const named = new Set([...change.origins, ...recent].map((origin) => origin.orgId));
  const othersListen = statusChanged && [...updated.keys()].some((orgId) => !named.has(orgId));
  const needsRecords = othersListen || escalating.length > 0;
  if (!(statusChanged && updated.size > 0) && !needsRecords) return [];
  const serviceAssetId = assetIdOf(change.key);
  const records = needsRecords ? await deps.records.allByAsset(serviceAssetId) : [];
  const planned: Planned[] = [];
  if (statusChanged) {
    const about = new Map<string, { assetId: number; content: string; type: string }>();
    for (const origin of [...change.origins, ...recent]) {
      if (about.has(origin.orgId)) continue;
      about.set(origin.orgId, {
        assetId: origin.assetId ?? serviceAssetId,
        content: origin.content ?? change.key,
        type: change.type ?? 'URL',
      });
    }
    for (const record of records) {
      if (about.has(record.organization) || record.kind === 'report') continue;
      about.set(record.organization, {
        assetId: record.assetId ?? serviceAssetId,
        content: record.content ?? change.key,
        type: change.type ?? record.assetType ?? 'URL',
      });
    }
    for (const [orgId, asset] of about) {
      const body = statusUpdatedBody(change.changedAt, { ...asset, status: statusOf(change.bits) });
      const eventId = eventIdOf('asset.status-updated', orgId, change.version);
      for (const hook of updated.get(orgId) ?? []) {
        planned.push({ hook, event: { eventId, type: 'asset.status-updated', position: change.version, body } });
      }
    }
  }
  const changedAt = Date.parse(change.changedAt);
  for (const origin of escalating) {
    for (const record of records) {
      if (!isApprovalOf(record, origin.orgId, changedAt)) continue;
      const review = record.review as NonNullable<typeof record.review>;
      const body = statusEscalatedBody(change.changedAt, {
        assetId: record.assetId ?? serviceAssetId,
        content: record.content,
        type: record.assetType,
        proposalId: Number(record.id),
        organizationId: organizationIdOf(origin.orgId),
      });
      const eventId = eventIdOf('asset.status-escalated', origin.orgId, `${record.id}/${review.id}`);
      for (const hook of escalated.get(origin.orgId) ?? []) {
        planned.push({
          hook,
          // After the status update of the same change, among a webhook's deliveries as on the wire.
          event: { eventId, type: 'asset.status-escalated', position: `${change.version}.1`, body },
        });
      }
    }
  }
  return planned;
};

/** `organization.threat-detection-added` for each subscribed webhook of the organization whose detection it is. */
export const eventsOfDetection = (entry: DetectionFeedEntry, hooks: readonly Webhook[]): Planned[] => {
  const body = threatDetectionAddedBody(entry.recordedAt, {
    organizationId: organizationIdOf(entry.orgId),
    detectionResultId: entry.detectionId,
  });
  const event: WebhookEventRecord = {
    eventId: eventIdOf('organization.threat-detection-added', entry.orgId, String(entry.detectionId)),
    type: 'organization.threat-detection-added',
    position: positionAt(timeOf(entry.sort)),
    body,
  };
  return (subscribers(hooks, 'organization.threat-detection-added').get(entry.orgId) ?? []).map((hook) => ({
    hook,
    event,
  }));
};

/** A proposal of `orgId` whose approval this change (stamped `changedAt`) carries. */
const isApprovalOf = (
  record: ActivityRecord,
  orgId: string,
  changedAt: number,
): record is ActivityRecord & { kind: 'threat' } => {
  if (record.kind !== 'threat' || record.organization !== orgId || record.reportId === undefined) return false;
  if (record.review?.decision !== 'APPROVE') return false;
  const reviewed = Date.parse(record.review.createdAt);
  return reviewed <= changedAt + LOG_TIMING.settleMs && reviewed >= changedAt - REVIEW_LEAD_MS;
};
