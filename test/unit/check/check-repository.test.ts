import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkIndexRepository } from '../../../shared/db/check-repository.ts';
import { key } from '../../../shared/db/keys.ts';
import { fileSnapshotStore, s3SnapshotStore } from '../../../shared/db/list-snapshot-store.ts';
import { s3Objects } from '../../../shared/db/s3.ts';
import { s3VerdictSnapshotStore } from '../../../shared/db/verdict-snapshot-store.ts';
import { snapshotOf } from '../../../shared/domain/check/lists.ts';
import type { VerdictSnapshot } from '../../../shared/domain/verdict-feed/index.ts';
import { type LoopbackAws, loopbackAws, objectsIn } from '../../fixtures/loopback-aws.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'check-table';

const item = (checkKey: string, counts: Record<string, number>) => ({ PK: key.checkEntry(checkKey).PK, ...counts });
const givenItems = (...items: Record<string, unknown>[]) =>
  ddb.on(BatchGetCommand).resolves({ Responses: { [TABLE]: items } });
const requestedKeys = () =>
  ddb.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems?.[TABLE]?.Keys);

describe('check index repository', () => {
  let clock = 0;
  const repository = () =>
    checkIndexRepository(ddb as unknown as DynamoDBDocumentClient, TABLE, { ttlMs: 1000, now: () => clock });

  beforeEach(() => {
    ddb.reset();
    clock = 0;
  });

  it('reads every candidate key in one BatchGetItem and answers in the order asked', async () => {
    givenItems(item('acme.com', { allow: 1 }), item('evil.acme.com', { block: 2, watch: 1 }));

    const answers = await repository().lookup(['evil.acme.com/x', 'evil.acme.com', 'acme.com']);

    expect(answers).toEqual([undefined, { allow: 0, block: 2, watch: 1 }, { allow: 1, block: 0, watch: 0 }]);
    expect(requestedKeys()).toEqual([
      [key.checkEntry('evil.acme.com/x'), key.checkEntry('evil.acme.com'), key.checkEntry('acme.com')],
    ]);
  });

  it('answers found and missing keys from its cache until the TTL passes', async () => {
    givenItems(item('acme.com', { allow: 1 }));
    const index = repository();
    await index.lookup(['x.acme.com', 'acme.com']);

    clock = 999;
    const cached = index.lookup(['x.acme.com', 'acme.com']);
    clock = 1000;
    await index.lookup(['x.acme.com', 'acme.com']);

    expect(cached).toEqual([undefined, { allow: 1, block: 0, watch: 0 }]);
    expect(requestedKeys()).toHaveLength(2);
  });

  it('reads only the keys its cache does not hold', async () => {
    givenItems();
    const index = repository();
    await index.lookup(['acme.com']);

    await index.lookup(['app.acme.com', 'acme.com']);

    expect(requestedKeys()).toEqual([[key.checkEntry('acme.com')], [key.checkEntry('app.acme.com')]]);
  });

  it('treats an item whose counters went back to zero as no entry', async () => {
    givenItems(item('acme.com', { allow: 0, block: 0, watch: 0 }));

    expect(await repository().lookup(['acme.com'])).toEqual([undefined]);
  });
});

describe('list snapshot stores', () => {
  const snapshot = snapshotOf(
    suffixes,
    'seal',
    'evil.example.com',
    'https://seal.example',
    new Date('2026-01-01T00:00:00Z'),
  );
  const pointer = {
    source: 'seal',
    version: snapshot.version,
    fetchedAt: snapshot.fetchedAt,
    sha256: snapshot.sha256,
    entries: 1,
  };
  /** The bucket's objects by path (`/<bucket>/<key>`), behind an S3 on 127.0.0.1. */
  const bucket = new Map<string, Buffer>();
  let s3: LoopbackAws;
  const s3Store = () => s3SnapshotStore(s3Objects(s3.endpoint), 'lists-bucket');

  beforeAll(async () => {
    s3 = await loopbackAws();
  });
  beforeEach(() => {
    bucket.clear();
    s3.reset();
    s3.otherwise(objectsIn(bucket));
  });
  afterAll(() => s3.close());

  it('writes the versioned snapshot to S3 before the latest pointer', async () => {
    await s3Store().save(snapshot);

    expect(s3.received.map((request) => [request.method, request.path, request.headers['content-type']])).toEqual([
      ['PUT', `/lists-bucket/lists/seal/${snapshot.version}.json`, 'application/json'],
      ['PUT', '/lists-bucket/lists/seal/latest.json', 'application/json'],
    ]);
    expect(JSON.parse(String(bucket.get('/lists-bucket/lists/seal/latest.json')))).toEqual(pointer);
  });

  it('reads the snapshot the latest pointer names', async () => {
    bucket.set('/lists-bucket/lists/seal/latest.json', Buffer.from(JSON.stringify(pointer)));
    bucket.set(`/lists-bucket/lists/seal/${snapshot.version}.json`, Buffer.from(JSON.stringify(snapshot)));

    expect(await s3Store().latest('seal')).toEqual(snapshot);
    expect(await s3Store().pointer('seal')).toEqual(pointer);
  });

  it('has no snapshot of a list that was never synced', async () => {
    expect(await s3Store().latest('vendor')).toBeUndefined();
    expect(s3.received.map((request) => request.path)).toEqual(['/lists-bucket/lists/vendor/latest.json']);
  });

  it('keeps snapshots as local files when there is no bucket', async () => {
    const store = fileSnapshotStore(await mkdtemp(join(tmpdir(), 'lists-')));

    await store.save(snapshot);

    expect(await store.latest('seal')).toEqual(snapshot);
    expect(await store.pointer('seal')).toEqual({
      source: 'seal',
      version: snapshot.version,
      fetchedAt: snapshot.fetchedAt,
      sha256: snapshot.sha256,
      entries: 1,
    });
    expect(await store.latest('vendor')).toBeUndefined();
  });
});

describe('the verdict snapshot store in S3', () => {
  const snapshot: VerdictSnapshot = {
    format: 1,
    position: '2026-01-01T00:00:00.000Z#0001',
    version: '2026-01-01T00:00:00.000Z#0001',
    createdAt: '2026-01-01T00:00:01.000Z',
    scannedAt: '2026-01-01T00:00:01.000Z',
    keys: ['evil.example.com'],
    states: [9],
  };
  const bucket = new Map<string, Buffer>();
  let s3: LoopbackAws;
  const store = () => s3VerdictSnapshotStore(s3Objects(s3.endpoint), 'verdicts-bucket');

  beforeAll(async () => {
    s3 = await loopbackAws();
    s3.otherwise(objectsIn(bucket));
  });
  afterAll(() => s3.close());

  it('has no snapshot before the first is saved, then reads back the gzipped one it saved', async () => {
    expect(await store().latest()).toBeUndefined();

    await store().save(snapshot);

    expect(await store().latest()).toEqual(snapshot);
    expect(s3.received.map((request) => [request.method, request.path, request.headers['content-type']])).toEqual([
      ['GET', '/verdicts-bucket/verdicts/snapshot.json.gz', undefined],
      ['PUT', '/verdicts-bucket/verdicts/snapshot.json.gz', 'application/gzip'],
      ['GET', '/verdicts-bucket/verdicts/snapshot.json.gz', undefined],
    ]);
  });
});
