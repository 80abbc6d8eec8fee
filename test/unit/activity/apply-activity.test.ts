import { describe, expect, it } from 'vitest';
import {
  type ActivityChange,
  applyActivities,
  applyActivity,
  counterShardOf,
  deleteActivity,
  parseActivityChange,
  updateActivity,
} from '../../../shared/domain/lifecycle/activity.ts';
import { NotFoundError, ServiceUnavailableError } from '../../../shared/errors.ts';
import { suffixes } from '../../fixtures/suffixes.ts';
import { fakeActivityStore } from './fake-activity-store.ts';

const change = (input: Record<string, unknown>): ActivityChange =>
  parseActivityChange({ organization: 'acme', createdAt: '2026-03-01T10:00:00Z', ...input });
const threat = (input: Record<string, unknown> = {}) =>
  change({
    kind: 'threat',
    id: 't-1',
    content: 'https://acme-airdrop.xyz/claim',
    assetType: 'URL',
    status: 'BLOCKED',
    brands: ['acme-wallet'],
    ...input,
  });
/** The counter shard of threat `t-1`, chosen at its first write. */
const THREAT_SHARD = counterShardOf({ previous: undefined, next: threat() });
const takedown = (input: Record<string, unknown> = {}) =>
  change({ kind: 'takedown', id: 'td-1', status: 'TODO', brands: ['acme-wallet'], ...input });

describe('applyActivity', () => {
  it('counts a new record in the organization and in each of its brands on its createdAt day', async () => {
    const { store, counter } = fakeActivityStore();

    const result = await applyActivity(
      suffixes,
      store,
      change({ kind: 'report', id: 'r-1', brands: ['acme-wallet', 'acme-exchange'] }),
    );

    expect(result).toBe('applied');
    expect(counter('acme', undefined, '2026-03-01')).toEqual({ reports: 1 });
    expect(counter('acme', 'acme-wallet', '2026-03-01')).toEqual({ reports: 1 });
    expect(counter('acme', 'acme-exchange', '2026-03-01')).toEqual({ reports: 1 });
  });

  it('ignores a redelivered change and a change older than the stored record', async () => {
    const { store, commits } = fakeActivityStore();
    await applyActivity(suffixes, store, threat({ updatedAt: '2026-03-02T10:00:00Z' }));

    const redelivered = await applyActivity(suffixes, store, threat({ updatedAt: '2026-03-02T10:00:00Z' }));
    const older = await applyActivity(
      suffixes,
      store,
      threat({ status: 'REJECTED', updatedAt: '2026-03-01T12:00:00Z' }),
    );

    expect([redelivered, older]).toEqual(['ignored', 'ignored']);
    expect(commits).toHaveLength(1);
  });

  it('ignores a different change that carries the stored updatedAt: the first applied of equal times stays', async () => {
    const { store, commits, counter, checks } = fakeActivityStore();
    await applyActivity(suffixes, store, threat({ updatedAt: '2026-03-02T10:00:00Z' }));

    const sameTime = await applyActivity(
      suffixes,
      store,
      threat({ status: 'REJECTED', updatedAt: '2026-03-02T10:00:00Z' }),
    );

    expect(sameTime).toBe('ignored');
    expect(commits).toHaveLength(1);
    expect(counter('acme', undefined, '2026-03-01')).toEqual({ threats_URL: 1 });
    expect(Object.fromEntries(checks)).toEqual({ 'acme-airdrop.xyz/claim': { block: 1, watch: 0 } });
  });

  it('counts a blocked threat by asset type, a watchlisted one at organization level only, and blocks its content', async () => {
    const { store, counter, checks } = fakeActivityStore();

    await applyActivity(suffixes, store, threat({ watchlisted: true }));

    expect(counter('acme', undefined, '2026-03-01')).toEqual({ threats_URL: 1, watchlisted: 1 });
    expect(counter('acme', 'acme-wallet', '2026-03-01')).toEqual({ threats_URL: 1 });
    expect(Object.fromEntries(checks)).toEqual({ 'acme-airdrop.xyz/claim': { block: 1, watch: 1 } });
  });

  it('counts a watchlisted threat of any status but blocks only a counted one', async () => {
    const { store, counter, checks } = fakeActivityStore();

    await applyActivity(suffixes, store, threat({ status: 'PENDING', watchlisted: true }));

    expect(counter('acme', undefined, '2026-03-01')).toEqual({ watchlisted: 1 });
    expect(counter('acme', 'acme-wallet', '2026-03-01')).toEqual({});
    expect(checks.size).toBe(0);
  });

  it('withdraws the block when a threat leaves the counted statuses', async () => {
    const { store, commits, checks } = fakeActivityStore();
    await applyActivity(suffixes, store, threat({ watchlisted: true }));

    await applyActivity(
      suffixes,
      store,
      threat({ status: 'REJECTED', watchlisted: true, updatedAt: '2026-03-03T00:00:00Z' }),
    );

    expect(commits[1]).toEqual({
      counters: [
        { orgId: 'acme', day: '2026-03-01', shard: THREAT_SHARD, deltas: { threats_URL: -1 } },
        {
          orgId: 'acme',
          brandSlug: 'acme-wallet',
          day: '2026-03-01',
          shard: THREAT_SHARD,
          deltas: { threats_URL: -1 },
        },
      ],
      checks: [{ checkKey: 'acme-airdrop.xyz/claim', block: -1, watch: -1 }],
    });
    expect(Object.fromEntries(checks)).toEqual({ 'acme-airdrop.xyz/claim': { block: 0, watch: 0 } });
  });

  it("moves the check-index entry when a blocked threat's content changes", async () => {
    const { store, commits } = fakeActivityStore();
    await applyActivity(suffixes, store, threat());

    await applyActivity(suffixes, store, threat({ content: 'acme-claim.xyz', updatedAt: '2026-03-02T00:00:00Z' }));

    expect(commits[1]).toEqual({
      counters: [],
      checks: [
        { checkKey: 'acme-claim.xyz', block: 1, watch: 0 },
        { checkKey: 'acme-airdrop.xyz/claim', block: -1, watch: 0 },
      ],
    });
  });

  it('merges the deltas of one check-index entry when a content changes only in form', async () => {
    const { store, commits } = fakeActivityStore();
    await applyActivity(suffixes, store, threat());

    await applyActivity(
      suffixes,
      store,
      threat({ content: 'acme-airdrop.xyz/claim/', watchlisted: true, updatedAt: '2026-03-02T00:00:00Z' }),
    );

    expect(commits[1]).toEqual({
      counters: [{ orgId: 'acme', day: '2026-03-01', shard: THREAT_SHARD, deltas: { watchlisted: 1 } }],
      checks: [{ checkKey: 'acme-airdrop.xyz/claim', block: 0, watch: 1 }],
    });
  });

  it("counts a brand's takedown on its updatedAt day and the organization's on its createdAt day", async () => {
    const { store, counter } = fakeActivityStore();
    await applyActivity(suffixes, store, takedown());

    await applyActivity(suffixes, store, takedown({ status: 'COMPLETED', updatedAt: '2026-03-04T08:00:00Z' }));

    expect(counter('acme', undefined, '2026-03-01')).toEqual({ takedownsFiled: 1, takedownsCompleted: 1 });
    expect(counter('acme', 'acme-wallet', '2026-03-01')).toEqual({});
    expect(counter('acme', 'acme-wallet', '2026-03-04')).toEqual({ takedownsFiled: 1, takedownsCompleted: 1 });
  });

  it('moves counts between brands and days when brands and createdAt change', async () => {
    const { store, counter } = fakeActivityStore();
    await applyActivity(suffixes, store, change({ kind: 'report', id: 'r-1', brands: ['acme-wallet'] }));

    await applyActivity(
      suffixes,
      store,
      change({
        kind: 'report',
        id: 'r-1',
        brands: ['acme-exchange'],
        createdAt: '2026-03-02T10:00:00Z',
        updatedAt: '2026-03-03T00:00:00Z',
      }),
    );

    expect(counter('acme', undefined, '2026-03-01')).toEqual({});
    expect(counter('acme', undefined, '2026-03-02')).toEqual({ reports: 1 });
    expect(counter('acme', 'acme-wallet', '2026-03-01')).toEqual({});
    expect(counter('acme', 'acme-exchange', '2026-03-02')).toEqual({ reports: 1 });
  });

  it('writes only the record when a change moves no counter', async () => {
    const { store, commits } = fakeActivityStore();
    await applyActivity(suffixes, store, threat({ status: 'PENDING' }));

    await applyActivity(suffixes, store, threat({ status: 'REJECTED', updatedAt: '2026-03-02T00:00:00Z' }));

    expect(commits[1]).toEqual({ counters: [], checks: [] });
  });

  it('takes a soft-deleted record out of every counter and the check index, and keeps it out', async () => {
    const { store, counter, checks } = fakeActivityStore();
    await applyActivity(suffixes, store, threat({ watchlisted: true }));

    await applyActivity(
      suffixes,
      store,
      threat({ watchlisted: true, deleted: true, updatedAt: '2026-03-02T00:00:00Z' }),
    );
    const stale = await applyActivity(
      suffixes,
      store,
      threat({ watchlisted: true, updatedAt: '2026-03-01T20:00:00Z' }),
    );

    expect(stale).toBe('ignored');
    expect(counter('acme', undefined, '2026-03-01')).toEqual({});
    expect(counter('acme', 'acme-wallet', '2026-03-01')).toEqual({});
    expect(Object.fromEntries(checks)).toEqual({ 'acme-airdrop.xyz/claim': { block: 0, watch: 0 } });
  });

  it('records a deletion that arrives before its record, so the late creation is ignored', async () => {
    const { store, counter } = fakeActivityStore();

    await applyActivity(suffixes, store, threat({ deleted: true, updatedAt: '2026-03-02T00:00:00Z' }));
    const late = await applyActivity(suffixes, store, threat());

    expect(late).toBe('ignored');
    expect(counter('acme', undefined, '2026-03-01')).toEqual({});
  });

  it('recomputes from the newer stored state when another writer commits first', async () => {
    const { store, counter, interleave, put } = fakeActivityStore();
    await applyActivity(suffixes, store, takedown());
    const { counterShard } = (await store.find(takedown())) ?? {};
    interleave(() => put({ ...takedown({ status: 'IN_PROGRESS', updatedAt: '2026-03-02T00:00:00Z' }), counterShard }));

    const result = await applyActivity(
      suffixes,
      store,
      takedown({ status: 'COMPLETED', updatedAt: '2026-03-03T00:00:00Z' }),
    );

    expect(result).toBe('applied');
    expect(counter('acme', undefined, '2026-03-01')).toEqual({ takedownsFiled: 1, takedownsCompleted: 1 });
  });

  it('rejects a change of an unknown organization or naming a brand the organization lacks', async () => {
    const { store } = fakeActivityStore();

    await expect(
      applyActivity(suffixes, store, change({ organization: 'umbrella', kind: 'report', id: 'r-1' })),
    ).rejects.toThrow(new NotFoundError('Organization umbrella not found'));
    await expect(
      applyActivity(suffixes, store, change({ kind: 'report', id: 'r-1', brands: ['globex-pay'] })),
    ).rejects.toThrow(new NotFoundError('Brand not found in organization acme: globex-pay'));
  });
});

describe('updateActivity and deleteActivity', () => {
  it('applies changed fields on top of the stored record, as of now', async () => {
    const { store, counter } = fakeActivityStore();
    await applyActivity(suffixes, store, threat({ status: 'PENDING' }));

    const { result, change: applied } = await updateActivity(
      suffixes,
      store,
      { organization: 'acme', kind: 'threat', id: 't-1' },
      { status: 'BLOCKED' },
      '2026-03-05T00:00:00Z',
    );

    expect(result).toBe('applied');
    expect(applied).toMatchObject({
      status: 'BLOCKED',
      content: 'https://acme-airdrop.xyz/claim',
      updatedAt: '2026-03-05T00:00:00.000Z',
    });
    expect(counter('acme', undefined, '2026-03-01')).toEqual({ threats_URL: 1 });
  });

  it('soft-deletes a stored record and refuses one that was never recorded', async () => {
    const { store, counter } = fakeActivityStore();
    await applyActivity(suffixes, store, takedown());

    const { result } = await deleteActivity(
      suffixes,
      store,
      { organization: 'acme', kind: 'takedown', id: 'td-1' },
      '2026-03-02T00:00:00Z',
    );

    expect(result).toBe('applied');
    expect(counter('acme', undefined, '2026-03-01')).toEqual({});
    await expect(
      deleteActivity(suffixes, store, { organization: 'acme', kind: 'report', id: 'r-404' }, '2026-03-02T00:00:00Z'),
    ).rejects.toThrow(new NotFoundError('No report acme/r-404 has been recorded'));
  });
});

describe('applyActivities', () => {
  it('tries a change again after a pause while its items are contended, and gives up after the fifth try', async () => {
    const { store, counter } = fakeActivityStore();
    const contended = (times: number) => {
      let left = times;
      return {
        ...store,
        async commit(...args: Parameters<typeof store.commit>) {
          if (left-- > 0)
            throw new ServiceUnavailableError('The data store is busy with other writes to the same items');
          return store.commit(...args);
        },
      };
    };
    const pauses: number[] = [];
    const clock = { now: () => 0, sleep: async (ms: number) => void pauses.push(ms) };
    const report = (id: string) => change({ kind: 'report', id, brands: ['acme-wallet'] });

    const totals = await applyActivities(suffixes, contended(4), [report('r-1')], { clock });
    const failed = await applyActivities(suffixes, contended(5), [report('r-2')], { clock }).catch(
      (error: unknown) => error,
    );

    expect(totals).toEqual({ applied: 1, ignored: 0 });
    expect(counter('acme', undefined, '2026-03-01')).toEqual({ reports: 1 });
    expect(failed).toBeInstanceOf(ServiceUnavailableError);
    expect(pauses).toHaveLength(8);
  });
});
