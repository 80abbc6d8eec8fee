import { QueryCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BIT, pack, type VerdictLog, type VerdictSnapshotStore } from '../../../shared/domain/verdict-feed/index.ts';
import { cancelled, mockDb } from '../../fixtures/mock-db.ts';
import { captureOutput } from '../../fixtures/output.ts';

const ddb = mockDb();
const output = captureOutput();

type Definition = { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] };
type EmfRecord = { _aws: { CloudWatchMetrics: Definition[] } } & { [key: string]: unknown };
/** The EMF records that carry `metric`: their definitions and their values. */
const published = (metric: string) =>
  (output.lines().filter((line) => '_aws' in line && metric in line) as EmfRecord[]).map(({ _aws, ...values }) => ({
    definitions: _aws.CloudWatchMetrics,
    values,
  }));

const T = Date.parse('2026-06-01T12:00:00Z');
const put = { Put: { Item: { PK: 'a', SK: 'a' } } };

/** A new container: the metrics instance reads POWERTOOLS_METRICS_DISABLED when its module loads. */
const fresh = <T>(path: string): Promise<T> => {
  vi.resetModules();
  return import(path) as Promise<T>;
};
type ChangeSets = typeof import('../../../shared/db/change-set.ts');

describe('operational metrics', () => {
  beforeEach(() => {
    ddb.reset();
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
  });

  it('count each transaction attempt cancelled by a conflict under [service, route] and [service] in a route’s function', async () => {
    vi.stubEnv('ROUTE_NAME', 'create-assets');
    const { changeWriter, record } = await fresh<ChangeSets>('../../../shared/db/change-set.ts');
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['None', 'TransactionConflict']))
      .rejectsOnce(cancelled(['TransactionConflict', 'None']))
      .resolves({});

    await changeWriter(ddb as never, 'table').commit(() => [record(put), record(put)]);

    const conflict = {
      definitions: [
        {
          Namespace: 'AssetProtection',
          Dimensions: [['service', 'route'], ['service']],
          Metrics: [{ Name: 'TransactionConflicts', Unit: 'Count' }],
        },
      ],
      values: { service: 'asset-protection-local', route: 'create-assets', TransactionConflicts: 1 },
    };
    expect(published('TransactionConflicts')).toEqual([conflict, conflict]);
  });

  it('count a conflict in a worker, which serves no route, under [service] only', async () => {
    const { changeWriter, record } = await fresh<ChangeSets>('../../../shared/db/change-set.ts');
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['TransactionConflict']))
      .resolves({});

    await changeWriter(ddb as never, 'table').commit(() => [record(put)]);

    expect(published('TransactionConflicts')).toEqual([
      {
        definitions: [
          {
            Namespace: 'AssetProtection',
            Dimensions: [['service']],
            Metrics: [{ Name: 'TransactionConflicts', Unit: 'Count' }],
          },
        ],
        values: { service: 'asset-protection-local', TransactionConflicts: 1 },
      },
    ]);
  });

  it('count no conflict when a transaction is cancelled by a failed condition', async () => {
    const { changeWriter, record } = await fresh<ChangeSets>('../../../shared/db/change-set.ts');
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed']));

    await expect(changeWriter(ddb as never, 'table').commit(() => [record(put)])).rejects.toThrow('conditions failed');

    expect(published('TransactionConflicts')).toEqual([]);
  });

  it('publish the largest age the check function’s replica answered with in the interval, in seconds, under [service, route]', async () => {
    vi.stubEnv('ROUTE_NAME', 'check-asset');
    vi.stubEnv('VERDICTS_DIR', undefined);
    vi.stubEnv('VERDICTS_BUCKET', undefined);
    vi.useFakeTimers({ now: T, toFake: ['Date'] });
    ddb.on(ScanCommand).resolves({ Items: [] });
    ddb.on(QueryCommand).resolves({ Items: [] });
    vi.resetModules();
    const runtime = await import('../../../shared/runtime.ts');
    const metrics = await import('../../../shared/metrics.ts');
    const index = runtime.checkIndex();

    const lookupAt = async (time: number) => {
      vi.setSystemTime(time);
      await index.lookup(['acme-airdrop.xyz']);
    };

    await lookupAt(T);
    await lookupAt(T + 700);
    // A poll is due: this answer comes from the verdicts held, and the poll catches up behind it.
    await lookupAt(T + 1_200);
    await index.sync();
    await lookupAt(T + 1_300);
    metrics.recordResponse('check-asset', 200, 1);

    expect(published('ReplicaAge')).toEqual([
      {
        definitions: [
          {
            Namespace: 'AssetProtection',
            Dimensions: [['service', 'route']],
            Metrics: [{ Name: 'ReplicaAge', Unit: 'Seconds' }],
          },
        ],
        values: { service: 'asset-protection-local', route: 'check-asset', ReplicaAge: 1.2 },
      },
    ]);
  });

  it('publish one stored snapshot under [service] for each run of the snapshot job, and none when storing fails', async () => {
    const { createHandler } = await fresh<typeof import('../../../functions/check/snapshot.ts')>(
      '../../../functions/check/snapshot.ts',
    );
    const log: VerdictLog = {
      readFrom: async () => [],
      indexShards: 1,
      readIndexPage: async () => ({ keys: ['acme-airdrop.xyz'], states: [pack(1, BIT.block)] }),
    };
    const store: VerdictSnapshotStore = { latest: async () => undefined, save: async () => {} };
    const failing: VerdictSnapshotStore = {
      latest: async () => undefined,
      save: () => Promise.reject(new Error('denied')),
    };
    const answer = async () => {};

    await createHandler({ log, snapshots: store, now: () => T, answer })({});
    await expect(createHandler({ log, snapshots: failing, now: () => T, answer })({})).rejects.toThrow('denied');

    expect(published('SnapshotsStored')).toEqual([
      {
        definitions: [
          {
            Namespace: 'AssetProtection',
            Dimensions: [['service']],
            Metrics: [{ Name: 'SnapshotsStored', Unit: 'Count' }],
          },
        ],
        values: { service: 'asset-protection-local', SnapshotsStored: 1 },
      },
    ]);
  });
});
