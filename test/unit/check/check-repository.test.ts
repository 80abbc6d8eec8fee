import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkIndexRepository } from '../../../shared/db/check-repository.ts';
import { key } from '../../../shared/db/keys.ts';
import { fileSnapshotStore, s3SnapshotStore } from '../../../shared/db/list-snapshot-store.ts';
import { snapshotOf } from '../../../shared/domain/check/lists.ts';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
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

/** The part of an S3 response body stream the store reads. */
const body = (text: string) =>
  ({ transformToString: async () => text }) as unknown as NonNullable<GetObjectCommandOutput['Body']>;

describe('list snapshot stores', () => {
  const snapshot = snapshotOf('seal', 'evil.example.com', 'https://seal.example', new Date('2026-01-01T00:00:00Z'));

  beforeEach(() => s3.reset());

  it('writes the versioned snapshot to S3 before the latest pointer', async () => {
    s3.on(PutObjectCommand).resolves({});

    await s3SnapshotStore('lists-bucket').save(snapshot);

    expect(s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input.Key)).toEqual([
      `lists/seal/${snapshot.version}.json`,
      'lists/seal/latest.json',
    ]);
  });

  it('reads the snapshot the latest pointer names', async () => {
    const pointer = {
      source: 'seal',
      version: snapshot.version,
      fetchedAt: snapshot.fetchedAt,
      sha256: snapshot.sha256,
      entries: 1,
    };
    s3.on(GetObjectCommand, { Key: 'lists/seal/latest.json' }).resolves({ Body: body(JSON.stringify(pointer)) });
    s3.on(GetObjectCommand, { Key: `lists/seal/${snapshot.version}.json` }).resolves({
      Body: body(JSON.stringify(snapshot)),
    });

    expect(await s3SnapshotStore('lists-bucket').latest('seal')).toEqual(snapshot);
  });

  it('has no snapshot of a list that was never synced', async () => {
    s3.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }));

    expect(await s3SnapshotStore('lists-bucket').latest('vendor')).toBeUndefined();
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
