import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetType } from '../domain/allowlist/asset-types.ts';
import { SHARDED_COUNTERS_FLAG, TOTAL } from '../domain/insights/counters.ts';
import { takedownStage } from '../domain/insights/insight-counters.ts';
import {
  type ActivityEffects,
  type ActivityRecord,
  type CounterDelta,
  counterShardOf,
  LEGACY_TAKEDOWN_STATUSES,
  type RecordWrite,
} from '../domain/lifecycle/activity.ts';
import type { ClaimName, CommitGuards, CommitOutcome, LifecycleStore } from '../domain/lifecycle/store.ts';
import { blockedMoves } from '../domain/taxii/index.ts';
import { batchGetAll } from './batch.ts';
import {
  type Change,
  type ChangeSet,
  changeWriter,
  claim,
  counter,
  type Outcome,
  record,
  refuse,
  release,
  verdicts,
  type Write,
} from './change-set.ts';
import {
  COUNTED_EVERYWHERE,
  insightDeltas,
  insightGaugeDeltas,
  insightHistogramDeltas,
  insightMonthDeltas,
  LEGACY_INSIGHTS_COUNTED,
} from './insight-items.ts';
import { ACTIVITY_INDEX, ATTR, activityIndexKeys, INCOMPLETE_REPORTS, key } from './keys.ts';
import { gaugeCounter, monthCounter } from './month-keys.ts';
import { collectionChanges } from './taxii-repository.ts';
import type { VerdictOrigin } from './verdict-change.ts';

/** Why a lifecycle commit is refused: the outcomes it answers, or a counter that would go below zero. */
type Refusal = Exclude<CommitOutcome, 'committed'> | 'floor';

/** Attempts of one transaction while other writers hold its (hot) day items. */
const MAX_CONFLICT_ATTEMPTS = 12;

/** A record's day counters, with their total (what a metrics read probes) unless the deltas cancel out. */
const counterChange = ({ orgId, brandSlug, day, shard, deltas }: CounterDelta): Change<Refusal, never> => {
  const total = Object.values(deltas).reduce((sum, delta) => sum + delta, 0);
  return counter(
    brandSlug === undefined ? key.orgDay(orgId, day, shard) : key.brandDay(orgId, brandSlug, day, shard),
    total === 0 ? deltas : { ...deltas, [TOTAL]: total },
    refuse('floor'),
  );
};

/** The insight counters of an organization day and shard, in their own item (no total: nothing probes them). */
const insightChange = ({ orgId, day, shard, deltas }: CounterDelta): Change<Refusal, never> =>
  counter(key.insightDay(orgId, day, shard), deltas, refuse('floor'));

const INDEX_ATTRIBUTES = /^(list\dPK|list\dSK|assetPK|assetSK|search)$/;

/** A stored item as a record; a takedown stored under an earlier status name reads as its published one. */
export const toRecord = (item: Record<string, unknown>): ActivityRecord => {
  const { PK: _pk, SK: _sk, entity: _entity, [LEGACY_INSIGHTS_COUNTED]: _legacy, ...rest } = item;
  const record = Object.fromEntries(
    Object.entries(rest).filter(([name]) => !INDEX_ATTRIBUTES.test(name)),
  ) as ActivityRecord;
  if (record.kind !== 'takedown') return record;
  const renamed = LEGACY_TAKEDOWN_STATUSES[record.status];
  return renamed === undefined ? record : { ...record, status: renamed };
};

/** The stored item of a record: its key, the record, and the index attributes of its listings. */
export const activityItem = (record: ActivityRecord): Record<string, unknown> => {
  const proposals = record.kind === 'report' ? (record.proposals ?? []) : [];
  return {
    ...key.activity(record.organization, record.kind, record.id),
    entity: 'ACTIVITY',
    ...record,
    ...activityIndexKeys({
      ...record,
      pending: proposals.some((proposal) => proposal.reviewStatus === 'PENDING'),
      rejected: proposals.some((proposal) => proposal.reviewStatus === 'REJECTED'),
      blockedAt: record.kind === 'threat' ? record.blockedAt : undefined,
      inProgress: record.kind === 'takedown' && takedownStage(record.status) === 'IN_PROGRESS',
      content: record.kind === 'report' ? undefined : record.content,
      assetType: record.kind === 'report' ? undefined : record.assetType,
      assetId: record.kind === 'report' ? undefined : record.assetId,
    }),
  };
};

/** Every write of a record goes through here, so each stored version names the shard it is counted in. */
const recordPut = (write: RecordWrite): Write => ({
  Put: {
    Item: {
      ...activityItem({ ...write.next, counterShard: counterShardOf(write) }),
      ...COUNTED_EVERYWHERE,
    },
    ...(write.previous === undefined
      ? { ConditionExpression: 'attribute_not_exists(PK)' }
      : {
          ConditionExpression: 'updatedAt = :previous',
          ExpressionAttributeValues: { ':previous': write.previous.updatedAt },
        }),
  },
});

/**
 * A budget is kept while a use of it counts, and as long again: its item expires (TTL, epoch
 * seconds) two windows after its newest use.
 */
const budgetExpiry = ({ uses, windowMs }: { uses: number[]; windowMs: number }): number =>
  Math.ceil((Math.max(0, ...uses) + 2 * windowMs) / 1000);

const guardChanges = ({ claims = [], releases = [], budget }: CommitGuards): Change<Refusal, never>[] => [
  ...claims.map(({ name, holder }) => claim<Refusal>(key.pendingClaim(name), { holder }, refuse('claimed'))),
  ...releases.map((name) => release(key.pendingClaim(name))),
  ...(budget === undefined
    ? []
    : [
        record<Refusal>(
          {
            Put: {
              Item: {
                ...key.budget(budget.name),
                uses: budget.uses,
                version: budget.version + 1,
                [ATTR.ttl]: budgetExpiry(budget),
              },
              ExpressionAttributeNames: { '#version': 'version' },
              // Version 0: no item, or one of the earlier per-day counters (no version), which this replaces.
              ...(budget.version === 0
                ? { ConditionExpression: 'attribute_not_exists(#version)' }
                : {
                    ConditionExpression: '#version = :version',
                    ExpressionAttributeValues: { ':version': budget.version },
                  }),
            },
          },
          refuse('budget-moved'),
        ),
      ]),
];

/** The asset type of each check-index key the writes block or unblock, for the verdict log. */
const typesOf = (writes: readonly RecordWrite[]): Map<string, AssetType> => {
  const types = new Map<string, AssetType>();
  for (const { previous, next } of writes) {
    for (const record of [previous, next]) {
      if (record?.kind === 'threat' && record.checkKey !== undefined) types.set(record.checkKey, record.assetType);
    }
  }
  return types;
};

/** The organizations whose threats move each check-index key, for the verdict log. */
const originsOf = (writes: readonly RecordWrite[]): Map<string, VerdictOrigin[]> => {
  const origins = new Map<string, VerdictOrigin[]>();
  for (const { previous, next } of writes) {
    const record = next ?? previous;
    if (record?.kind !== 'threat' || record.checkKey === undefined) continue;
    const list = origins.get(record.checkKey) ?? [];
    if (list.some((origin) => origin.orgId === record.organization)) continue;
    list.push({
      orgId: record.organization,
      content: record.content,
      ...(record.assetId === undefined ? {} : { assetId: record.assetId }),
    });
    origins.set(record.checkKey, list);
  }
  return origins;
};

/** Organizations and brands are never deleted, so what was seen to exist is remembered (for a while). */
const REFERENCE_TTL_MS = 60_000;
const MAX_REMEMBERED_ORGANIZATIONS = 10_000;

export const activityRepository = (db: DynamoDBDocumentClient, table: string): LifecycleStore => {
  const changes = changeWriter(db, table);
  const seen = new Map<string, { brands: Set<string>; expires: number; sharded: boolean }>();
  /** The change-set of one lifecycle commit. */
  const lifecycleSet = (
    writes: readonly RecordWrite[],
    effects: ActivityEffects,
    guards: CommitGuards = {},
  ): ChangeSet<Refusal, never> => {
    const types = typesOf(writes);
    const origins = originsOf(writes);
    const checks = effects.checks.map(({ checkKey, block, watch }) => ({
      checkKey,
      type: types.get(checkKey),
      block,
      watch,
      origins: origins.get(checkKey),
    }));
    // The insight counters move with the records they count, in the same transaction as the metrics counters.
    const insights = insightDeltas(writes);
    const months = insightMonthDeltas(writes);
    const gauges = insightGaugeDeltas(writes);
    const histograms = insightHistogramDeltas(writes);
    return [
      ...writes.map((write) => record<Refusal>(recordPut(write), refuse('stale'))),
      ...effects.counters.map(counterChange),
      ...insights.map(insightChange),
      // A month item also names the keys its breakdowns count.
      ...months.map(({ orgId, month, shard, deltas }) =>
        monthCounter<Refusal>(key.insightMonth(orgId, month, shard), deltas, refuse('floor')),
      ),
      ...gauges.map(({ orgId, month, shard, deltas }) =>
        gaugeCounter<Refusal>(key.insightGauges(orgId, month, shard), deltas, refuse('floor')),
      ),
      ...histograms.map(({ orgId, item, month, shard, deltas }) =>
        counter<Refusal>(key.insightHistograms(orgId, item, month, shard), deltas, refuse('floor')),
      ),
      // Another change of the same check-index entry committed first: the verdicts change reads it again.
      ...(checks.length === 0 ? [] : [verdicts<Refusal>(checks, { onFloor: refuse('floor') })]),
      ...collectionChanges<Refusal>(blockedMoves(writes)),
      ...guardChanges(guards),
    ];
  };
  const outcomeOf = (outcome: Outcome<Refusal>): CommitOutcome => {
    if (outcome.committed) return 'committed';
    for (const reason of ['stale', 'claimed', 'budget-moved'] as const) {
      if (outcome.reasons.includes(reason)) return reason;
    }
    throw new Error('Applying this change would take a counter below zero: records and counters disagree');
  };
  const commitMany = async (
    writes: readonly RecordWrite[],
    effects: ActivityEffects,
    guards: CommitGuards = {},
  ): Promise<CommitOutcome> =>
    outcomeOf(
      await changes.commit(() => lifecycleSet(writes, effects, guards), { maxAttempts: MAX_CONFLICT_ATTEMPTS }),
    );
  const commitInParts: LifecycleStore['commitInParts'] = async (count, part) => {
    const { outcome, written } = await changes.commitInParts(
      count,
      (start, end, position) => {
        const { writes, effects, guards } = part(start, end, position);
        return lifecycleSet(writes, effects, guards);
      },
      { maxAttempts: MAX_CONFLICT_ATTEMPTS },
    );
    return { outcome: outcomeOf(outcome), written };
  };
  return {
    async find({ organization, kind, id }) {
      const { Item } = await db.send(
        new GetCommand({ TableName: table, Key: key.activity(organization, kind, id), ConsistentRead: true }),
      );
      return Item ? toRecord(Item) : undefined;
    },

    async readBudget(name) {
      const { Item } = await db.send(new GetCommand({ TableName: table, Key: key.budget(name), ConsistentRead: true }));
      return Item === undefined
        ? { uses: [], version: 0 }
        : { uses: (Item.uses as number[] | undefined) ?? [], version: (Item.version as number | undefined) ?? 0 };
    },

    async knownReferences(orgId, brands) {
      const entry = seen.get(orgId);
      const cached = entry && entry.expires > Date.now() ? entry : undefined;
      if (cached && brands.every((brand) => cached.brands.has(brand))) {
        return { organization: true, brands: new Set(brands), ...(cached.sharded ? { sharded: true } : {}) };
      }
      const items = await batchGetAll(db, table, [key.org(orgId), ...brands.map((brand) => key.brand(orgId, brand))], {
        expression: '#sk, #flags',
        names: { '#sk': 'SK', '#flags': 'featureFlags' },
      });
      const found = new Set(items.map((item) => item.SK as string));
      const known = new Set(brands.filter((brand) => found.has(key.brand(orgId, brand).SK)));
      const organization = found.has(key.org(orgId).SK);
      const flags = items.find((item) => item.SK === key.org(orgId).SK)?.featureFlags;
      const sharded = Array.isArray(flags) && flags.includes(SHARDED_COUNTERS_FLAG);
      if (organization) {
        if (seen.size >= MAX_REMEMBERED_ORGANIZATIONS) seen.clear();
        const remembered = cached ?? { brands: new Set<string>(), expires: Date.now() + REFERENCE_TTL_MS, sharded };
        for (const brand of known) remembered.brands.add(brand);
        seen.set(orgId, remembered);
      }
      return { organization, brands: known, ...(sharded ? { sharded: true } : {}) };
    },

    async commit(previous, next, effects: ActivityEffects) {
      return (await commitMany([{ previous, next }], effects)) === 'committed';
    },

    commitMany,

    commitInParts,

    async claimHolders(names) {
      const byPk = new Map(names.map((name) => [key.pendingClaim(name).PK, name]));
      const items = await batchGetAll(
        db,
        table,
        names.map((name) => key.pendingClaim(name)),
      );
      return new Map(items.map((item) => [byPk.get(item.PK as string) as ClaimName, item.holder as string]));
    },

    async incompleteReports(before, limit) {
      const { list1 } = ACTIVITY_INDEX;
      const { Items = [] } = await db.send(
        new QueryCommand({
          TableName: table,
          IndexName: list1.name,
          KeyConditionExpression: '#pk = :pk AND #sk < :before',
          ExpressionAttributeNames: { '#pk': list1.partitionKey, '#sk': list1.sortKey },
          ExpressionAttributeValues: { ':pk': INCOMPLETE_REPORTS, ':before': before },
          Limit: limit,
        }),
      );
      return Items.map((item) => ({ organization: item.organization as string, id: item.id as string }));
    },
  };
};
