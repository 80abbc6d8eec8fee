import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { reindexExport } from '../../shared/db/verdict-change.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { addAssets, removeAsset } from '../../shared/domain/allowlist/assets.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import { positionAt, readWholeIndex } from '../../shared/domain/verdict-feed/index.ts';
import { seedTwoOrganizations } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('verdict-log');
const assets = assetRepository(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);
const activity = activityRepository(table.db, table.tableName);
const feed = verdictFeed(table.db, table.tableName);
const started = positionAt(Date.now() - 1_000);

const threat = (id: string, content: string, status: string, updatedAt: string, watchlisted = false) =>
  applyActivity(suffixes, activity, {
    organization: 'acme',
    kind: 'threat',
    id,
    content,
    assetType: 'URL',
    status,
    watchlisted,
    brands: [],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt,
  } as never);

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
});

describe('the verdict log on DynamoDB Local', () => {
  it('appends one change per check-index change, with the state after it and consecutive sequences per key', async () => {
    const { results: added } = await addAssets(suffixes, assets, groups, 'acme', [
      { content: 'https://log-brand.example', type: 'URL' },
    ]);
    await addAssets(suffixes, assets, groups, 'globex', [{ content: 'log-brand.example', type: 'URL' }]);
    await removeAsset(assets, 'acme', added[0]?.success ? added[0].id : 0);
    await threat('t-log', 'log-threat.example', 'BLOCKED', '2026-03-01T10:00:00Z');
    await threat('t-log', 'log-threat.example', 'BLOCKED', '2026-03-02T10:00:00Z', true);
    await threat('t-log', 'log-threat.example', 'REJECTED', '2026-03-03T10:00:00Z', true);

    const changes = await feed.readFrom(started);

    expect(changes.map(({ key, type, bits, seq }) => ({ key, type, bits, seq }))).toEqual([
      { key: 'log-brand.example', type: 'URL', bits: 1, seq: 1 },
      { key: 'log-brand.example', type: 'URL', bits: 1, seq: 2 },
      { key: 'log-brand.example', type: 'URL', bits: 1, seq: 3 },
      { key: 'log-threat.example', type: 'URL', bits: 2, seq: 1 },
      { key: 'log-threat.example', type: 'URL', bits: 6, seq: 2 },
      { key: 'log-threat.example', type: 'URL', bits: 0, seq: 3 },
    ]);
    expect(changes.map((change) => change.version)).toEqual(changes.map((change) => change.version).sort());
  });

  it('reads every check-index entry with the sequence and bits its last change logged', async () => {
    const { keys, states } = await readWholeIndex(feed);
    const byKey = Object.fromEntries(keys.map((key, i) => [key, states[i]]));

    expect(byKey).toEqual({ 'log-brand.example': 3 * 8 + 1, 'log-threat.example': 3 * 8 + 0 });
  });

  it('hands clients only the changes that changed a verdict, in pages', async () => {
    const until = positionAt(Date.now() + 1);
    const pages = [];
    let after: string | undefined = started;
    while (after !== undefined) {
      const page = await feed.changes({ after, until, limit: 2 });
      pages.push(page.changes.map(({ key, bits }) => ({ key, bits })));
      after = page.next;
    }

    expect(pages).toEqual([
      [
        { key: 'log-brand.example', bits: 1 },
        { key: 'log-threat.example', bits: 2 },
      ],
      [
        { key: 'log-threat.example', bits: 6 },
        { key: 'log-threat.example', bits: 0 },
      ],
      [],
    ]);
  });

  it('reads an entry written before the check index existed once the operator reindexes it', async () => {
    await threat('t-older', 'log-older.example', 'BLOCKED', '2026-03-01T10:00:00Z');
    // As an entry of a table from before the index: no shard.
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.checkEntry('log-older.example'),
        UpdateExpression: 'REMOVE checkIdxPK',
      }),
    );
    const before = await readWholeIndex(feed);

    await reindexExport(table.db, table.tableName);

    const after = await readWholeIndex(feed);
    expect(before.keys).not.toContain('log-older.example');
    expect(after.states[after.keys.indexOf('log-older.example')]).toBe(1 * 8 + 2);
  });
});
