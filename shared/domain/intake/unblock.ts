import { BadRequestError } from '../../errors.ts';
import type { CheckIndexStore, PublicSuffixes } from '../check/index.ts';
import { canonicalize } from '../check/index.ts';
import {
  type ActivityRecord,
  type ActivityStore,
  effectsOf,
  isCountedThreat,
  toRecord,
} from '../lifecycle/activity.ts';
import { type DisputeDeps, disputeForOrganization } from './disputes.ts';

export type UnblockDeps = DisputeDeps & {
  store: Pick<ActivityStore, 'find' | 'commit'>;
  /** Uncached reads of the check index. */
  verdicts: CheckIndexStore;
  /** The threats of an organization that block content at one check-index key. */
  blockingThreats: (orgId: string, checkKey: string) => Promise<ActivityRecord[]>;
};

const ATTEMPTS = 8;

/** Later than both `now` and the record's last change, so every version has its own `updatedAt`. */
const after = (record: ActivityRecord, now: number): string =>
  new Date(Math.max(now, Date.parse(record.updatedAt) + 1)).toISOString();

/**
 * Moves one threat out of the blocking statuses (to REJECTED), with what it counted and blocked,
 * through the lifecycle's own transaction: the check index and the verdict log change with it.
 */
const withdrawBlock = async (
  suffixes: PublicSuffixes,
  store: UnblockDeps['store'],
  threat: ActivityRecord,
  now: number,
): Promise<void> => {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const current = await store.find(threat);
    if (current?.kind !== 'threat' || current.deleted || !isCountedThreat(current)) return;
    const next = toRecord(suffixes, current, { ...current, status: 'REJECTED', updatedAt: after(current, now) });
    if (await store.commit(current, next, effectsOf(current, next))) return;
  }
  throw new Error(`Threat ${threat.id} kept changing while it was unblocked`);
};

/** The most specific key at which the service's own index decides for this content. */
const decidingKey = async (verdicts: CheckIndexStore, keys: readonly string[]): Promise<string | undefined> => {
  const entries = await verdicts.lookup(keys);
  const index = entries.findIndex((entry) => entry !== undefined && (entry.allow > 0 || entry.block > 0));
  return index < 0 ? undefined : keys[index];
};

/**
 * `POST /asset/unblock`: content the caller's organization blocks leaves its threats' blocking
 * statuses (UNBLOCKED). Content blocked by someone else (another organization, an external
 * list), or still blocked once the caller's own threats are withdrawn, gets a dispute filed on
 * the organization's behalf (DISPUTED; a repeat names the same dispute).
 */
export const unblockAsset = async (deps: UnblockDeps, orgId: string, content: string, now: number) => {
  const target = canonicalize(deps.suffixes, content);
  const result = target.kind === 'keys' ? await deps.checker.check(content) : undefined;
  if (target.kind !== 'keys' || result?.status !== 'BLOCKED') throw new BadRequestError('Asset is not blocked');
  if (result.source === 'service') {
    const key = await decidingKey(deps.verdicts, target.keys);
    const own = key === undefined ? [] : await deps.blockingThreats(orgId, key);
    for (const threat of own) await withdrawBlock(deps.suffixes, deps.store, threat, now);
    if (own.length > 0 && (await deps.checker.check(content)).status !== 'BLOCKED') {
      return { status: 'UNBLOCKED' as const, content };
    }
  }
  const disputeId = await disputeForOrganization(deps, orgId, content, now);
  return { status: 'DISPUTED' as const, content, disputeId };
};
