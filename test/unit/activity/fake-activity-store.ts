import {
  type ActivityEffects,
  type ActivityRecord,
  type ActivityRef,
  type ActivityStore,
  counterShardOf,
} from '../../../shared/domain/lifecycle/activity.ts';

const recordId = (ref: ActivityRef) => `${ref.organization}/${ref.kind}/${ref.id}`;

/**
 * An in-memory ActivityStore with the repository's contract: `commit` succeeds only while the
 * stored record is still `previous`, stores `next` with its counter shard, and applies every
 * effect with it.
 */
export const fakeActivityStore = (
  organizations: Record<string, string[]> = { acme: ['acme-wallet', 'acme-exchange'] },
) => {
  const records = new Map<string, ActivityRecord>();
  const counters = new Map<string, Record<string, number>>();
  const checks = new Map<string, { block: number; watch: number }>();
  const commits: ActivityEffects[] = [];
  let beforeCommit: (() => void) | undefined;

  const store: ActivityStore = {
    async find(ref) {
      return records.get(recordId(ref));
    },
    async knownReferences(orgId, brands) {
      const known = organizations[orgId];
      return { organization: known !== undefined, brands: new Set(brands.filter((b) => known?.includes(b))) };
    },
    async commit(previous, next, effects) {
      const hook = beforeCommit;
      beforeCommit = undefined;
      hook?.();
      if (records.get(recordId(next))?.updatedAt !== previous?.updatedAt) return false;
      records.set(recordId(next), { ...next, counterShard: counterShardOf({ previous, next }) });
      commits.push(effects);
      for (const { orgId, brandSlug, day, shard, deltas } of effects.counters) {
        const id = `${orgId}|${brandSlug ?? ''}|${day}|${shard}`;
        const item = counters.get(id) ?? {};
        for (const [name, delta] of Object.entries(deltas)) item[name] = (item[name] ?? 0) + delta;
        counters.set(id, item);
      }
      for (const { checkKey, block, watch } of effects.checks) {
        const item = checks.get(checkKey) ?? { block: 0, watch: 0 };
        checks.set(checkKey, { block: item.block + block, watch: item.watch + watch });
      }
      return true;
    },
  };

  return {
    store,
    commits,
    checks,
    /** Non-zero counters of one day, summed over its shards: `counter('acme', undefined, '2026-03-01')`. */
    counter: (orgId: string, brandSlug: string | undefined, day: string) => {
      const sums: Record<string, number> = {};
      for (const [id, item] of counters) {
        if (!id.startsWith(`${orgId}|${brandSlug ?? ''}|${day}|`)) continue;
        for (const [name, value] of Object.entries(item)) sums[name] = (sums[name] ?? 0) + value;
      }
      return Object.fromEntries(Object.entries(sums).filter(([, value]) => value !== 0));
    },
    /** Lets another writer act between this writer's read and its commit. */
    interleave: (action: () => void) => {
      beforeCommit = action;
    },
    put: (record: ActivityRecord) => records.set(recordId(record), record),
  };
};
