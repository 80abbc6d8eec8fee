import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AssetType } from '../domain/allowlist/asset-types.ts';
import { mapConcurrently } from '../domain/core/concurrency.ts';
import type { ActivityRecord } from '../domain/lifecycle/activity.ts';
import { allowedMove, blockedMoves, type CollectionMove } from '../domain/taxii/index.ts';
import { toRecord } from './activity-repository.ts';
import { batchGetAll, queryPages, scanPages } from './batch.ts';
import { changeWriter, record, refuse } from './change-set.ts';
import { DIRECTORY_ENTITY } from './directory-repository.ts';
import { ACTIVITY_INDEX, INDEX, key, listPartition, livePartition } from './keys.ts';
import { ensureCollectionIds, enteredItems, taxiiRepository } from './taxii-repository.ts';

/** Entries written side by side, each in its own transaction. */
const CONCURRENCY = 8;

/** What a run did: organizations seen and given collection ids, entries added per collection, and entries found there already. */
export type TaxiiMigration = Record<
  'organizations' | 'collectionIdsGiven' | 'blockedAdded' | 'allowedAdded' | 'alreadyPresent',
  number
>;

type Added = { added: number; present: number };

/**
 * Puts each move's entry into its collection as the live write path does (the same indicator id,
 * generation and `created`; dated when this run adds it), unless its object is there already: the
 * object item is written only where none exists, with its version in the same transaction, so an
 * entry the live path added or revoked meanwhile is left as it is, and a second run adds nothing.
 */
const addEntries = async (db: DynamoDBDocumentClient, table: string, moves: readonly CollectionMove[]) => {
  const changes = changeWriter(db, table);
  const counted: Added = { added: 0, present: 0 };
  const items = moves.map((move) => enteredItems(move));
  const objectKey = (item: Record<string, unknown>) => ({ PK: item.PK as string, SK: item.SK as string });
  const existing = await batchGetAll(
    db,
    table,
    items.map(([, object]) => objectKey(object)),
    { expression: '#pk, #sk', names: { '#pk': 'PK', '#sk': 'SK' } },
    { consistent: true },
  );
  const found = new Set(existing.map((item) => `${item.PK as string}\n${item.SK as string}`));
  const missing = items.filter(([, object]) => !found.has(`${object.PK as string}\n${object.SK as string}`));
  counted.present += items.length - missing.length;
  await mapConcurrently(missing, CONCURRENCY, async ([version, object]) => {
    const outcome = await changes.commit(() => [
      record<'present'>({ Put: { Item: object, ConditionExpression: 'attribute_not_exists(PK)' } }, refuse('present')),
      record<'present'>({ Put: { Item: version } }),
    ]);
    if (outcome.committed) counted.added++;
    else counted.present++;
  });
  return counted;
};

/** Reads an organization's entries of one collection as they are now, handing them over page by page. */
type EntriesOf = (
  db: DynamoDBDocumentClient,
  table: string,
  orgId: string,
  onPage: (moves: CollectionMove[]) => Promise<void>,
) => Promise<void>;

/** Every item of one partition of an index, page by page. */
const indexPages = (
  db: DynamoDBDocumentClient,
  table: string,
  index: { name: string; partitionKey: string },
  partition: string,
) =>
  queryPages(db, {
    TableName: table,
    IndexName: index.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': index.partitionKey },
    ExpressionAttributeValues: { ':pk': partition },
  });

/** The organization's threats in its `blocked` collection now (BLOCKED, APPROVED, AUTO_APPROVED), page by page. */
const blockedThreats: EntriesOf = async (db, table, orgId, onPage) => {
  const { list1 } = ACTIVITY_INDEX;
  for await (const page of indexPages(db, table, list1, listPartition(orgId, 'THREATS'))) {
    // The index may lag: each record as it is now decides.
    const keys = page.map((item) => ({ PK: item.PK as string, SK: item.SK as string }));
    const records = (await batchGetAll(db, table, keys, undefined, { consistent: true })).map(toRecord);
    await onPage(blockedMoves(records.map((next: ActivityRecord) => ({ next }))));
  }
};

/** The organization's allowlisted (live, ALLOWED) assets, as entries of its `allowed` collection, page by page. */
const allowedAssets: EntriesOf = async (db, table, orgId, onPage) => {
  for await (const page of indexPages(db, table, INDEX.byOrg, livePartition(orgId, {}))) {
    const keys = page.map((item) => key.asset(item.id as number));
    const assets = await batchGetAll(db, table, keys, undefined, { consistent: true });
    const moves = assets.flatMap((asset) =>
      asset.deletedAt === undefined && typeof asset.checkKey === 'string'
        ? [
            allowedMove(
              {
                orgId,
                id: asset.id as number,
                type: asset.type as AssetType,
                createdAt: asset.createdAt as string,
              },
              asset.checkKey,
              true,
            ),
          ]
        : [],
    );
    await onPage(moves);
  }
};

/**
 * Brings the TAXII collections of organizations stored before they existed up to date: an
 * operator's one-off after deploying the version that maintains them. Each organization without
 * collection ids gets them, and its current blocked threats and allowlisted assets enter its
 * `blocked` and `allowed` collections with the ids the live write path gives them, so a later
 * leave revokes them. Entries already present are skipped, so a second run writes nothing and a
 * run stopped anywhere is finished by the next. `progress` hears of each organization.
 */
export const migrateTaxiiCollections = async (
  db: DynamoDBDocumentClient,
  table: string,
  progress: (line: string) => void = () => undefined,
): Promise<TaxiiMigration> => {
  const totals: TaxiiMigration = {
    organizations: 0,
    collectionIdsGiven: 0,
    blockedAdded: 0,
    allowedAdded: 0,
    alreadyPresent: 0,
  };
  const store = taxiiRepository(db, table);
  const organization = key.org('');
  for await (const page of scanPages(db, {
    TableName: table,
    FilterExpression: '#entity = :organization AND begins_with(#pk, :prefix) AND #sk = :sk',
    ExpressionAttributeNames: { '#entity': 'entity', '#pk': 'PK', '#sk': 'SK' },
    ExpressionAttributeValues: {
      ':organization': DIRECTORY_ENTITY.organization,
      ':prefix': organization.PK,
      ':sk': organization.SK,
    },
    ConsistentRead: true,
  })) {
    for (const item of page.Items ?? []) {
      const orgId = (item.PK as string).slice(organization.PK.length);
      const given = (await store.collectionIds(orgId)) === undefined;
      if (given) await ensureCollectionIds(db, table, orgId);
      const blocked: Added = { added: 0, present: 0 };
      const allowed: Added = { added: 0, present: 0 };
      const add = (into: Added) => async (moves: CollectionMove[]) => {
        const { added, present } = await addEntries(db, table, moves);
        into.added += added;
        into.present += present;
      };
      await blockedThreats(db, table, orgId, add(blocked));
      await allowedAssets(db, table, orgId, add(allowed));
      totals.organizations++;
      if (given) totals.collectionIdsGiven++;
      totals.blockedAdded += blocked.added;
      totals.allowedAdded += allowed.added;
      totals.alreadyPresent += blocked.present + allowed.present;
      progress(
        `${orgId}: collection ids ${given ? 'given' : 'kept'}; blocked ${blocked.added} added, ${blocked.present} ` +
          `already present; allowed ${allowed.added} added, ${allowed.present} already present`,
      );
    }
  }
  return totals;
};
