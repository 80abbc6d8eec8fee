import { createHash } from 'node:crypto';
import { NotFoundError, ServiceUnavailableError } from '../../errors.ts';
import { entryKeyOf, type PublicSuffixes } from '../check/index.ts';
import { type Clock, systemClock } from '../core/clock.ts';
import { mapConcurrently } from '../core/concurrency.ts';
import { assetIdOf } from '../core/ids.ts';
import { type Backoff, retry } from '../core/retry.ts';
import { COUNTER, COUNTER_SHARDS, spreadCounterOf, threatCounter } from '../insights/counters.ts';
import {
  type ActivityChange,
  type ActivityKind,
  COUNTED_THREAT_STATUSES,
  parseActivityChange,
} from './activity-change.ts';
import { withBackingReports } from './backing-reports.ts';

export {
  ACTIVITY_KINDS,
  type ActivityChange,
  type ActivityKind,
  COUNTED_THREAT_STATUSES,
  LEGACY_TAKEDOWN_STATUSES,
  LIVENESS_STATUSES,
  type LivenessStatus,
  MAX_BRANDS_PER_RECORD,
  parseActivityChange,
  REPORT_STATUSES,
  REVIEW_STATUSES,
  type ReportStatus,
  type ReviewStatus,
  TAKEDOWN_STATUSES,
  type TakedownStatus,
  type ThreatStatus,
} from './activity-change.ts';

export type ActivityRef = { organization: string; kind: ActivityKind; id: string };

/**
 * A change as applied; `checkKey` is the check-index key its block (and watch) sits under, if it has
 * one; `counterShard` the day-counter shard it is counted in (absent: stored before counters were
 * sharded, so shard 0).
 */
export type ActivityRecord = ActivityChange & { checkKey?: string; counterShard?: number };

export type CounterDelta = {
  orgId: string;
  brandSlug?: string;
  day: string;
  shard: number;
  deltas: Record<string, number>;
};
export type CheckDelta = { checkKey: string; block: number; watch: number };
/** What a change does besides writing its record: non-zero deltas, at most one entry per item. */
export type ActivityEffects = { counters: CounterDelta[]; checks: CheckDelta[] };

export interface ActivityStore {
  find(ref: ActivityRef): Promise<ActivityRecord | undefined>;
  /** Whether the organization exists, and which of `brands` are its brands. */
  /** `sharded`: the organization spreads its day counters over `COUNTER_SHARDS` shards (`SHARDED_COUNTERS_FLAG`). */
  knownReferences(
    orgId: string,
    brands: readonly string[],
  ): Promise<{ organization: boolean; brands: Set<string>; sharded?: boolean }>;
  /**
   * One transaction: replaces `previous` (undefined: no record yet) by `next` and applies
   * `effects`. Resolves false, changing nothing, when the stored record is no longer `previous`.
   */
  commit(previous: ActivityRecord | undefined, next: ActivityRecord, effects: ActivityEffects): Promise<boolean>;
}

export type ApplyResult = 'applied' | 'ignored';

/** Each retry follows a newer version of the record that another writer committed meanwhile. */
const MAX_ATTEMPTS = 16;

export const describeRef = (ref: ActivityRef): string => `${ref.kind} ${ref.organization}/${ref.id}`;

export const isCountedThreat = (record: ActivityRecord): boolean =>
  record.kind === 'threat' && !record.deleted && COUNTED_THREAT_STATUSES.has(record.status);

/**
 * A threat or takedown whose change names no asset (ingested, or from a fixture) is about the
 * content it names: it gets that content's identity, so lookups by content find it.
 */
const identified = (suffixes: PublicSuffixes, change: ActivityChange): ActivityChange => {
  if (change.kind === 'report' || change.assetId !== undefined) return change;
  if (change.content === undefined || change.assetType === undefined) return change;
  const checkKey = entryKeyOf(suffixes, change.content, change.assetType);
  return checkKey === undefined ? change : { ...change, assetId: assetIdOf(checkKey) };
};

/**
 * The record a change leaves: a blocking threat carries its check-index key and `blockedAt`, the
 * time it entered a blocking status (kept while it stays in one).
 */
export const toRecord = (
  suffixes: PublicSuffixes,
  previous: ActivityRecord | undefined,
  sent: ActivityChange,
): ActivityRecord => {
  const change = identified(suffixes, sent);
  if (change.kind !== 'threat') return change;
  const { blockedAt: _, ...rest } = change;
  if (!isCountedThreat(change)) return rest;
  const checkKey = entryKeyOf(suffixes, change.content, change.assetType);
  const stillBlocked = previous?.kind === 'threat' && isCountedThreat(previous) ? previous.blockedAt : undefined;
  return {
    ...rest,
    blockedAt: stillBlocked ?? change.updatedAt,
    ...(checkKey === undefined ? {} : { checkKey }),
  };
};

/** Timestamps are normalized `toISOString()` text: the first ten characters are the UTC day. */
const dayOf = (timestamp: string): string => timestamp.slice(0, 10);

class Ledger {
  readonly #counters = new Map<string, CounterDelta>();
  readonly #checks = new Map<string, CheckDelta>();

  count(orgId: string, brandSlug: string | undefined, day: string, shard: number, name: string, amount: number): void {
    const id = `${brandSlug ?? ''}\u0000${day}\u0000${shard}`;
    let entry = this.#counters.get(id);
    if (!entry) {
      entry =
        brandSlug === undefined ? { orgId, day, shard, deltas: {} } : { orgId, brandSlug, day, shard, deltas: {} };
      this.#counters.set(id, entry);
    }
    entry.deltas[name] = (entry.deltas[name] ?? 0) + amount;
  }

  check(checkKey: string, block: number, watch: number): void {
    const entry = this.#checks.get(checkKey) ?? { checkKey, block: 0, watch: 0 };
    entry.block += block;
    entry.watch += watch;
    this.#checks.set(checkKey, entry);
  }

  /** Adds (sign 1) or withdraws (sign -1) everything a record contributes, in its counter shard. */
  record(record: ActivityRecord | undefined, shard: number, sign: 1 | -1): void {
    if (record === undefined || record.deleted || (record.kind === 'report' && record.incomplete)) return;
    const org = record.organization;
    const count = (brand: string | undefined, day: string, name: string) =>
      this.count(org, brand, day, shard, name, sign);
    const everywhere = (day: string, name: string, brandDay = day) => {
      count(undefined, day, name);
      for (const brand of record.brands) count(brand, brandDay, name);
    };
    const created = dayOf(record.createdAt);
    switch (record.kind) {
      case 'report':
        everywhere(created, COUNTER.reports);
        break;
      case 'threat':
        // Brand-level metrics report no watchlisted threats, so only the organization counts them.
        if (record.watchlisted) count(undefined, created, COUNTER.watchlisted);
        if (isCountedThreat(record)) {
          everywhere(created, threatCounter(record.assetType));
          if (record.checkKey !== undefined) this.check(record.checkKey, sign, record.watchlisted ? sign : 0);
        }
        break;
      case 'takedown': {
        const updated = dayOf(record.updatedAt);
        everywhere(created, COUNTER.takedownsFiled, updated);
        if (record.status === 'COMPLETED') everywhere(created, COUNTER.takedownsCompleted, updated);
        break;
      }
    }
  }

  effects(): ActivityEffects {
    const counters: CounterDelta[] = [];
    for (const entry of this.#counters.values()) {
      const deltas = Object.fromEntries(Object.entries(entry.deltas).filter(([, delta]) => delta !== 0));
      if (Object.keys(deltas).length > 0) counters.push({ ...entry, deltas });
    }
    const checks = [...this.#checks.values()].filter((entry) => entry.block !== 0 || entry.watch !== 0);
    return { counters, checks };
  }
}

/** One record replaced in a transaction: `previous` undefined when there is no record yet. */
export type RecordWrite = { previous: ActivityRecord | undefined; next: ActivityRecord };

/**
 * The day-counter shard of a write, stored with its `next` record: a record keeps the shard its
 * stored version was counted in (0 when it was stored before counters were sharded), so every
 * withdrawal meets its addition; a new record is counted in the shard its `next` names (see
 * `spreadShardOf`), else in shard 0. The stored record, not a copy in memory, must be the write's
 * `previous` whenever it counts anywhere.
 */
export const counterShardOf = ({ previous, next }: RecordWrite): number =>
  previous === undefined ? (next.counterShard ?? 0) : (previous.counterShard ?? 0);

/**
 * The shard a new record of an organization with sharded counters is counted in, by the digest of
 * its id. Only such organizations spread their day items: a read then sums 8 items per day where an
 * unsharded organization's sums 1, whatever the number of records.
 */
export const spreadShardOf = (id: string): number =>
  createHash('sha256').update(id, 'utf8').digest().readUInt32BE(0) % COUNTER_SHARDS;

/** The counter and check-index deltas of every write together: new contributions minus old. */
export const effectsOfAll = (writes: readonly RecordWrite[]): ActivityEffects => {
  const ledger = new Ledger();
  for (const write of writes) {
    const shard = counterShardOf(write);
    ledger.record(write.next, shard, 1);
    ledger.record(write.previous, shard, -1);
  }
  return ledger.effects();
};

/** The counter and check-index deltas of replacing `previous` by `next`: new contribution minus old. */
export const effectsOf = (previous: ActivityRecord | undefined, next: ActivityRecord): ActivityEffects =>
  effectsOfAll([{ previous, next }]);

/** Checks the change's organization and brands; resolves whether the organization's counters are sharded. */
const assertReferences = async (store: ActivityStore, change: ActivityChange): Promise<boolean> => {
  const known = await store.knownReferences(change.organization, change.brands);
  if (!known.organization) throw new NotFoundError(`Organization ${change.organization} not found`);
  const unknown = change.brands.filter((brand) => !known.brands.has(brand));
  if (unknown.length > 0) {
    throw new NotFoundError(`Brand not found in organization ${change.organization}: ${unknown.join(', ')}`);
  }
  return known.sharded === true;
};

/**
 * Applies one change exactly once: the record and every counter it moves change in one
 * transaction. A change not newer (by `updatedAt`) than the stored record is a redelivery or
 * arrived out of order, and is ignored.
 */
export const applyActivity = async (
  suffixes: PublicSuffixes,
  store: ActivityStore,
  input: ActivityChange,
): Promise<ApplyResult> => {
  const change = parseActivityChange(input);
  let sharded: boolean | undefined;
  for (let attempt = 1; ; attempt++) {
    const previous = await store.find(change);
    if (previous !== undefined && previous.updatedAt >= change.updatedAt) return 'ignored';
    sharded ??= await assertReferences(store, change);
    const applied = toRecord(suffixes, previous, change);
    const next = previous === undefined && sharded ? { ...applied, counterShard: spreadCounterOf(change.id) } : applied;
    if (await store.commit(previous, next, effectsOf(previous, next))) return 'applied';
    if (attempt >= MAX_ATTEMPTS) {
      throw new Error(`${describeRef(change)} kept changing under this write; gave up after ${attempt} attempts`);
    }
  }
};

/** Tries of one change of a bulk load whose items stay contended. */
const CONTENDED_TRIES = 5;
/** Full jitter below 200, 400, 800, 1600 ms. */
const CONTENDED_BACKOFF: Backoff = { firstMs: 200, jitter: 'full' };

/**
 * Applies many changes, `concurrency` at a time; order does not matter, since each change is
 * idempotent and ordered by `updatedAt`. `onResult` hears of each change as it completes.
 */
export const applyActivities = async (
  suffixes: PublicSuffixes,
  store: ActivityStore,
  changes: readonly ActivityChange[],
  {
    concurrency = 8,
    onResult,
    clock = systemClock,
  }: { concurrency?: number; onResult?: (result: ApplyResult, change: ActivityChange) => void; clock?: Clock } = {},
): Promise<Record<ApplyResult, number>> => {
  const totals = { applied: 0, ignored: 0 };
  // A bulk load is no request: a change whose items other changes of the load hold (one
  // organization's day counters, say) is tried again after a pause instead of failing the load.
  const apply = (change: ActivityChange): Promise<ApplyResult> =>
    retry(() => applyActivity(suffixes, store, change), {
      maxAttempts: CONTENDED_TRIES,
      backoff: CONTENDED_BACKOFF,
      shouldRetry: (error) => error instanceof ServiceUnavailableError,
      clock,
    });
  await mapConcurrently(changes, concurrency, async (change) => {
    const result = await apply(change);
    totals[result]++;
    onResult?.(result, change);
  });
  return totals;
};

/** A message body that is not JSON or not a valid change: no retry can ever apply it. */
const parseMessage = (body: string): ActivityChange | { rejected: unknown } => {
  try {
    return parseActivityChange(JSON.parse(body));
  } catch (reason) {
    return { rejected: reason };
  }
};

/**
 * One queue message's change (its JSON body), applied idempotently, so a redelivered message is
 * harmless. A body that can never apply is answered `rejected`, with why, to be dead-lettered at
 * once; a failure to apply is thrown, for the message to be redelivered.
 */
export const applyMessage = async (
  suffixes: PublicSuffixes,
  store: ActivityStore,
  body: string,
): Promise<ApplyResult | { rejected: unknown }> => {
  const parsed = parseMessage(body);
  if ('rejected' in parsed) return parsed;
  // A block that names no report gets its backing report first (applied alone, idempotent like any change).
  const [report, threat] = withBackingReports(suffixes, [parsed]);
  if (threat === undefined) return applyActivity(suffixes, store, parsed);
  await applyActivity(suffixes, store, report as ActivityChange);
  return applyActivity(suffixes, store, threat);
};

const stored = async (store: ActivityStore, ref: ActivityRef): Promise<ActivityRecord> => {
  const record = await store.find(ref);
  if (!record) throw new NotFoundError(`No ${describeRef(ref)} has been recorded`);
  return record;
};

/** Applies `changes` on top of the stored state of a record; `updatedAt` defaults to `now`. */
export const updateActivity = async (
  suffixes: PublicSuffixes,
  store: ActivityStore,
  ref: ActivityRef,
  changes: Record<string, unknown>,
  now: string,
): Promise<{ result: ApplyResult; change: ActivityChange }> => {
  const { checkKey: _, ...current } = await stored(store, ref);
  const change = parseActivityChange({ ...current, updatedAt: now, ...changes, ...ref });
  return { result: await applyActivity(suffixes, store, change), change };
};

/** Soft-deletes a record as of `updatedAt`: it leaves every counter and the check index. */
export const deleteActivity = (
  suffixes: PublicSuffixes,
  store: ActivityStore,
  ref: ActivityRef,
  updatedAt: string,
): Promise<{ result: ApplyResult; change: ActivityChange }> =>
  updateActivity(suffixes, store, ref, { deleted: true }, updatedAt);
