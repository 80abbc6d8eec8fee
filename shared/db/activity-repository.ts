import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  type ActivityEffects,
  type ActivityRecord,
  type CounterDelta,
  counterShardOf,
  LEGACY_TAKEDOWN_STATUSES,
  type RecordWrite,
} from '../domain/activity.ts';
import type { AssetType } from '../domain/asset-types.ts';
import { SHARDED_COUNTERS_FLAG, TOTAL } from '../domain/counters.ts';
import {
  INSIGHTS_COUNTED,
  insightDeltas,
  insightMonthDeltas,
  LEGACY_INSIGHTS_COUNTED,
  MONTHS_COUNTED,
} from '../domain/insight-counters.ts';
import type { CommitGuards, CommitOutcome, LifecycleStore } from '../domain/lifecycle-store.ts';
import { batchGetAll } from './batch.ts';
import { ACTIVITY_INDEX, ATTR, activityIndexKeys, INCOMPLETE_REPORTS, type Key, key } from './keys.ts';
import { withBreakdownKeys } from './month-keys.ts';
import { failedConditions, type TransactItem, transactWithRetry } from './transactions.ts';
import { type VerdictOrigin, verdictChange, verdictItemNames } from './verdict-log.ts';

/** Attempts of one transaction while other writers hold its (hot) day items. */
const MAX_CONFLICT_ATTEMPTS = 12;

/**
 * `ADD` for every delta; a decrement also requires the counter to hold at least that much,
 * so no counter can go below zero even if a stored record and its counters ever disagreed.
 */
const addAll = (deltas: Record<string, number>) => {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const adds: string[] = [];
  const floors: string[] = [];
  Object.entries(deltas).forEach(([name, delta], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = delta;
    adds.push(`#a${i} :a${i}`);
    if (delta < 0) {
      values[`:f${i}`] = -delta;
      floors.push(`#a${i} >= :f${i}`);
    }
  });
  return {
    names,
    values,
    add: `ADD ${adds.join(', ')}`,
    ...(floors.length > 0 ? { condition: floors.join(' AND ') } : {}),
  };
};

const counterUpdate = (TableName: string, { orgId, brandSlug, day, shard, deltas }: CounterDelta): TransactItem => {
  const total = Object.values(deltas).reduce((sum, delta) => sum + delta, 0);
  const expression = addAll(total === 0 ? deltas : { ...deltas, [TOTAL]: total });
  return {
    Update: {
      TableName,
      Key: brandSlug === undefined ? key.orgDay(orgId, day, shard) : key.brandDay(orgId, brandSlug, day, shard),
      UpdateExpression: expression.add,
      ConditionExpression: expression.condition,
      ExpressionAttributeNames: expression.names,
      ExpressionAttributeValues: expression.values,
    },
  };
};

/** The insight counters of an organization day (or month, `Key`) and shard, in their own item (no total: nothing probes them). */
const insightUpdate = (TableName: string, Key: Key, deltas: Record<string, number>, month = false): TransactItem => {
  const expression = addAll(deltas);
  const adds = {
    UpdateExpression: expression.add,
    ExpressionAttributeNames: expression.names,
    ExpressionAttributeValues: expression.values as Record<string, unknown>,
  };
  return {
    Update: {
      TableName,
      Key,
      ConditionExpression: expression.condition,
      // A month item also names the keys its breakdowns count.
      ...(month ? withBreakdownKeys(adds, deltas) : adds),
    },
  };
};

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
      content: record.kind === 'report' ? undefined : record.content,
      assetType: record.kind === 'report' ? undefined : record.assetType,
      assetId: record.kind === 'report' ? undefined : record.assetId,
    }),
  };
};

/** Every write of a record goes through here, so each stored version names the shard it is counted in. */
const recordPut = (TableName: string, write: RecordWrite): TransactItem => ({
  Put: {
    TableName,
    Item: {
      ...activityItem({ ...write.next, counterShard: counterShardOf(write) }),
      [INSIGHTS_COUNTED]: true,
      [MONTHS_COUNTED]: true,
    },
    ...(write.previous === undefined
      ? { ConditionExpression: 'attribute_not_exists(PK)' }
      : {
          ConditionExpression: 'updatedAt = :previous',
          ExpressionAttributeValues: { ':previous': write.previous.updatedAt },
        }),
  },
});

const guardItems = (TableName: string, { claims = [], releases = [], budget }: CommitGuards) => ({
  ...Object.fromEntries(
    claims.map(({ name, holder }, i) => [
      `claim${i}`,
      { Put: { TableName, Item: { ...key.claim(name), holder }, ConditionExpression: 'attribute_not_exists(PK)' } },
    ]),
  ),
  ...Object.fromEntries(releases.map((name, i) => [`release${i}`, { Delete: { TableName, Key: key.claim(name) } }])),
  ...(budget === undefined
    ? {}
    : {
        budget: {
          Put: {
            TableName,
            Item: {
              ...key.budget(budget.name),
              uses: budget.uses,
              version: budget.version + 1,
              [ATTR.ttl]: budget.expiresAt,
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
      }),
});

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
  const seen = new Map<string, { brands: Set<string>; expires: number; sharded: boolean }>();
  const commitMany = async (
    writes: readonly RecordWrite[],
    effects: ActivityEffects,
    guards: CommitGuards = {},
  ): Promise<CommitOutcome> => {
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
    const build = async () => ({
      ...Object.fromEntries(writes.map((write, i) => [`record${i}`, recordPut(table, write)])),
      ...Object.fromEntries(effects.counters.map((delta, i) => [`counter${i}`, counterUpdate(table, delta)])),
      ...Object.fromEntries(
        insights.map(({ orgId, day, shard, deltas }, i) => [
          `insight${i}`,
          insightUpdate(table, key.insightDay(orgId, day, shard), deltas),
        ]),
      ),
      ...Object.fromEntries(
        months.map(({ orgId, month, shard, deltas }, i) => [
          `insightMonth${i}`,
          insightUpdate(table, key.insightMonth(orgId, month, shard), deltas, true),
        ]),
      ),
      ...(await verdictChange(db, table, checks)),
      ...guardItems(table, guards),
    });
    try {
      await transactWithRetry(db, build, {
        // Another change of the same check-index entry committed first: read it again.
        retryOn: verdictItemNames(checks.length),
        maxAttempts: MAX_CONFLICT_ATTEMPTS,
      });
      return 'committed';
    } catch (error) {
      const failed = [...failedConditions(error)];
      if (failed.some((name) => name.startsWith('record'))) return 'stale';
      if (failed.some((name) => name.startsWith('claim'))) return 'claimed';
      if (failed.includes('budget')) return 'budget-moved';
      if (failed.length > 0) {
        throw new Error('Applying this change would take a counter below zero: records and counters disagree', {
          cause: error,
        });
      }
      throw error;
    }
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

    async claimHolders(names) {
      const byPk = new Map(names.map((name) => [key.claim(name).PK, name]));
      const items = await batchGetAll(
        db,
        table,
        names.map((name) => key.claim(name)),
      );
      return new Map(items.map((item) => [byPk.get(item.PK as string) as string, item.holder as string]));
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
