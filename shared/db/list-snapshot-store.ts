import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ListSnapshot, SnapshotPointer, SnapshotStore } from '../domain/check/lists.ts';
import type { ExternalSourceName } from '../domain/check/types.ts';

const pointerOf = (snapshot: ListSnapshot): SnapshotPointer => ({
  source: snapshot.source,
  version: snapshot.version,
  fetchedAt: snapshot.fetchedAt,
  sha256: snapshot.sha256,
  entries: snapshot.allow.length + snapshot.deny.length + (snapshot.fuzzy?.length ?? 0),
});

/**
 * List snapshots in S3: `lists/<source>/<version>.json`, immutable, and `lists/<source>/latest.json`,
 * the pointer to the current one (written last, so a reader never sees a pointer without its snapshot).
 */
export const s3SnapshotStore = (s3: S3Client, bucket: string, prefix = 'lists'): SnapshotStore => {
  const getJson = async <T>(objectKey: string): Promise<T | undefined> => {
    try {
      const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey }));
      return Body ? (JSON.parse(await Body.transformToString()) as T) : undefined;
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  };
  const putJson = (objectKey: string, value: unknown) =>
    s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: objectKey,
        Body: JSON.stringify(value),
        ContentType: 'application/json',
      }),
    );
  const pointer = (source: ExternalSourceName) => getJson<SnapshotPointer>(`${prefix}/${source}/latest.json`);

  return {
    pointer,
    async latest(source) {
      const current = await pointer(source);
      return current ? getJson<ListSnapshot>(`${prefix}/${source}/${current.version}.json`) : undefined;
    },
    async save(snapshot) {
      await putJson(`${prefix}/${snapshot.source}/${snapshot.version}.json`, snapshot);
      await putJson(`${prefix}/${snapshot.source}/latest.json`, pointerOf(snapshot));
    },
  };
};

/** List snapshots as local files, `<dir>/<source>.json`, for running without AWS. */
export const fileSnapshotStore = (dir: string): SnapshotStore => {
  const latest = async (source: ExternalSourceName): Promise<ListSnapshot | undefined> => {
    try {
      return JSON.parse(await readFile(join(dir, `${source}.json`), 'utf8')) as ListSnapshot;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  return {
    latest,
    async pointer(source) {
      const snapshot = await latest(source);
      return snapshot ? pointerOf(snapshot) : undefined;
    },
    async save(snapshot) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${snapshot.source}.json`), `${JSON.stringify(snapshot, null, 1)}\n`);
    },
  };
};
