import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ActivityEffects, ActivityRecord, ActivityStore, CounterDelta } from '../domain/activity.ts';
import { TOTAL } from '../domain/counters.ts';
import { batchGetAll } from './batch.ts';
import { key } from './keys.ts';
import { failedConditions, type TransactItem, transactWithRetry } from './transactions.ts';
import { verdictChange, verdictItemNames } from './verdict-log.ts';

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

const counterUpdate = (TableName: string, { orgId, brandSlug, day, deltas }: CounterDelta): TransactItem => {
  const total = Object.values(deltas).reduce((sum, delta) => sum + delta, 0);
  const expression = addAll(total === 0 ? deltas : { ...deltas, [TOTAL]: total });
  return {
    Update: {
      TableName,
      Key: brandSlug === undefined ? key.orgDay(orgId, day) : key.brandDay(orgId, brandSlug, day),
      UpdateExpression: expression.add,
      ConditionExpression: expression.condition,
      ExpressionAttributeNames: expression.names,
      ExpressionAttributeValues: expression.values,
    },
  };
};

const toRecord = (item: Record<string, unknown>): ActivityRecord => {
  const { PK: _pk, SK: _sk, entity: _entity, ...record } = item;
  return record as ActivityRecord;
};

/** Organizations and brands are never deleted, so what was seen to exist is remembered (for a while). */
const REFERENCE_TTL_MS = 60_000;
const MAX_REMEMBERED_ORGANIZATIONS = 10_000;

export const activityRepository = (db: DynamoDBDocumentClient, table: string): ActivityStore => {
  const seen = new Map<string, { brands: Set<string>; expires: number }>();
  return {
    async find({ organization, kind, id }) {
      const { Item } = await db.send(
        new GetCommand({ TableName: table, Key: key.activity(organization, kind, id), ConsistentRead: true }),
      );
      return Item ? toRecord(Item) : undefined;
    },

    async knownReferences(orgId, brands) {
      const entry = seen.get(orgId);
      const cached = entry && entry.expires > Date.now() ? entry : undefined;
      if (cached && brands.every((brand) => cached.brands.has(brand))) {
        return { organization: true, brands: new Set(brands) };
      }
      const items = await batchGetAll(db, table, [key.org(orgId), ...brands.map((brand) => key.brand(orgId, brand))], {
        expression: '#sk',
        names: { '#sk': 'SK' },
      });
      const found = new Set(items.map((item) => item.SK as string));
      const known = new Set(brands.filter((brand) => found.has(key.brand(orgId, brand).SK)));
      const organization = found.has(key.org(orgId).SK);
      if (organization) {
        if (seen.size >= MAX_REMEMBERED_ORGANIZATIONS) seen.clear();
        const remembered = cached ?? { brands: new Set<string>(), expires: Date.now() + REFERENCE_TTL_MS };
        for (const brand of known) remembered.brands.add(brand);
        seen.set(orgId, remembered);
      }
      return { organization, brands: known };
    },

    async commit(previous, next, effects: ActivityEffects) {
      const type =
        next.kind === 'threat' ? next.assetType : previous?.kind === 'threat' ? previous.assetType : undefined;
      const checks = effects.checks.map(({ checkKey, block, watch }) => ({ checkKey, type, block, watch }));
      const build = async () => ({
        record: {
          Put: {
            TableName: table,
            Item: { ...key.activity(next.organization, next.kind, next.id), entity: 'ACTIVITY', ...next },
            ...(previous === undefined
              ? { ConditionExpression: 'attribute_not_exists(PK)' }
              : {
                  ConditionExpression: 'updatedAt = :previous',
                  ExpressionAttributeValues: { ':previous': previous.updatedAt },
                }),
          },
        },
        ...Object.fromEntries(effects.counters.map((delta, i) => [`counter${i}`, counterUpdate(table, delta)])),
        ...(await verdictChange(db, table, checks)),
      });
      try {
        await transactWithRetry(db, build, {
          // Another change of the same check-index entry committed first: read it again.
          retryOn: verdictItemNames(checks.length),
          maxAttempts: MAX_CONFLICT_ATTEMPTS,
        });
        return true;
      } catch (error) {
        const failed = failedConditions(error);
        if (failed.has('record')) return false;
        if (failed.size > 0) {
          throw new Error('Applying this change would take a counter below zero: records and counters disagree', {
            cause: error,
          });
        }
        throw error;
      }
    },
  };
};
