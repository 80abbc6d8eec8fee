import { describe, expect, it } from 'vitest';
import type { LoggedChange } from '../../../shared/db/webhook-repository.ts';
import type { ActivityRecord } from '../../../shared/domain/lifecycle/activity.ts';
import { assetIdOf, organizationIdOf } from '../../../shared/domain/lifecycle/reports.ts';
import { BIT } from '../../../shared/domain/verdict-feed/index.ts';
import type { Webhook, WebhookEvent } from '../../../shared/domain/webhooks/webhooks.ts';
import { eventsOfChange } from '../../../shared/webhooks/dispatch.ts';

const CHANGED_AT = '2026-11-21T10:00:05.000Z';
const change = (overrides: Partial<LoggedChange>): LoggedChange => ({
  key: 'phish.example/login',
  type: 'URL',
  bits: BIT.block,
  previousBits: 0,
  version: '1795255205000-0123456789abcdef-000000000001',
  changedAt: CHANGED_AT,
  origins: [],
  ...overrides,
});
const hook = (orgId: string, events: WebhookEvent[], enabled = true): Webhook => ({
  id: `hook-${orgId}-${events.length}`,
  orgId,
  url: 'https://hooks.example.com/',
  description: null,
  events,
  headers: undefined,
  enabled,
  createdAt: CHANGED_AT,
  sealedSecret: 'sealed',
});
const threat = (organization: string, overrides: Partial<ActivityRecord> = {}): ActivityRecord =>
  ({
    kind: 'threat',
    organization,
    id: '1795255200000123',
    content: 'https://phish.example/login',
    assetType: 'URL',
    assetId: assetIdOf('phish.example/login'),
    status: 'APPROVED',
    watchlisted: false,
    brands: [],
    createdAt: '2026-11-21T09:00:00.000Z',
    updatedAt: CHANGED_AT,
    deleted: false,
    reportId: '1795255100000001',
    review: {
      id: 1795255205000001,
      decision: 'APPROVE',
      label: 'General Phishing',
      brandId: null,
      comment: null,
      reason: null,
      createdAt: '2026-11-21T10:00:04.990Z',
    },
    ...overrides,
  }) as ActivityRecord;
const recordsOf = (records: ActivityRecord[]) => {
  const reads: number[] = [];
  return {
    reads,
    deps: {
      records: {
        allByAsset: async (assetId: number) => {
          reads.push(assetId);
          return records;
        },
      },
    },
  };
};

describe('the events one verdict change makes', () => {
  it('sends a status update to the organization whose allowlisting it was, with its own asset id and content', async () => {
    const { deps } = recordsOf([]);
    const acme = hook('acme', ['asset.status-updated']);

    const planned = await eventsOfChange(
      deps,
      change({ bits: BIT.allow, origins: [{ orgId: 'acme', assetId: 42, content: 'https://phish.example/login' }] }),
      [acme, hook('globex', ['asset.status-updated'])],
    );

    expect(planned.map((p) => [p.hook.id, JSON.parse(p.event.body)])).toEqual([
      [
        acme.id,
        {
          type: 'asset.status-updated',
          created_at: CHANGED_AT,
          data: { asset_id: 42, type: 'URL', content: 'https://phish.example/login', status: 'ALLOWED' },
        },
      ],
    ]);
  });

  it('sends nothing, and reads nothing, when the change leaves the status as it was and escalates nothing', async () => {
    const { deps, reads } = recordsOf([threat('acme')]);

    const planned = await eventsOfChange(deps, change({ bits: BIT.block, previousBits: BIT.block }), [
      hook('acme', ['asset.status-updated']),
    ]);

    expect(planned).toEqual([]);
    expect(reads).toEqual([]);
  });

  it('reaches the organizations that reported the content or own it as a threat, and no one unsubscribed or disabled', async () => {
    const { deps } = recordsOf([threat('globex', { status: 'PENDING', review: undefined }), threat('initech')]);

    const planned = await eventsOfChange(deps, change({ bits: 0, previousBits: BIT.block }), [
      hook('globex', ['asset.status-updated']),
      hook('initech', ['asset.status-escalated']),
      hook('umbrella', ['asset.status-updated']),
      hook('initech', ['asset.status-updated', 'asset.status-escalated'], false),
    ]);

    expect(planned.map((p) => [p.hook.orgId, JSON.parse(p.event.body).data.status])).toEqual([['globex', 'UNKNOWN']]);
  });

  it('escalates a proposal its organization approved in this change, after the status update, with a stable id', async () => {
    const { deps } = recordsOf([threat('acme')]);
    const acme = hook('acme', ['asset.status-updated', 'asset.status-escalated']);
    const approval = change({ origins: [{ orgId: 'acme', content: 'https://phish.example/login' }] });

    const planned = await eventsOfChange(deps, approval, [acme]);
    const again = await eventsOfChange(deps, approval, [acme]);

    expect(planned.map((p) => p.event.type)).toEqual(['asset.status-updated', 'asset.status-escalated']);
    expect(JSON.parse(planned[1]?.event.body ?? '')).toEqual({
      type: 'asset.status-escalated',
      created_at: CHANGED_AT,
      data: {
        asset_id: assetIdOf('phish.example/login'),
        content: 'https://phish.example/login',
        type: 'url',
        status: 'BLOCKED',
        proposal_id: 1795255200000123,
        organization_id: organizationIdOf('acme'),
      },
    });
    expect((planned[1]?.event.position ?? '') > (planned[0]?.event.position ?? '')).toBe(true);
    expect(again.map((p) => p.event.eventId)).toEqual(planned.map((p) => p.event.eventId));
  });

  it("escalates neither an approval long before the change nor another organization's", async () => {
    const old = threat('acme', {
      review: { ...(threat('acme') as { review: NonNullable<unknown> }).review, createdAt: '2026-11-21T09:00:00.000Z' },
    } as Partial<ActivityRecord>);
    const { deps } = recordsOf([old, threat('globex')]);

    const planned = await eventsOfChange(deps, change({ origins: [{ orgId: 'acme' }] }), [
      hook('acme', ['asset.status-escalated']),
      hook('globex', ['asset.status-escalated']),
    ]);

    expect(planned).toEqual([]);
  });
});
