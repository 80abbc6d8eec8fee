import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { IndexRebuild, VerdictSnapshot, VerdictSnapshotStore } from '../domain/verdict-feed/index.ts';
import type { ObjectStore } from './s3.ts';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

const encode = (value: VerdictSnapshot | IndexRebuild): Promise<Buffer> => zip(JSON.stringify(value));

const decode = async (bytes: Uint8Array): Promise<VerdictSnapshot> => {
  const snapshot = JSON.parse((await unzip(bytes)).toString('utf8')) as VerdictSnapshot;
  if (snapshot.format !== 1) throw new Error(`Verdict snapshot format ${String(snapshot.format)} is not readable here`);
  return snapshot;
};

/** An empty object is no rebuild: the job's grant is to put objects under its prefix, not to delete them. */
const decodeRebuild = async (bytes: Uint8Array | undefined): Promise<IndexRebuild | undefined> => {
  if (bytes === undefined || bytes.length === 0) return undefined;
  const rebuild = JSON.parse((await unzip(bytes)).toString('utf8')) as IndexRebuild;
  if (rebuild.format !== 1) throw new Error(`Verdict rebuild format ${String(rebuild.format)} is not readable here`);
  return rebuild;
};

/**
 * Verdict snapshots in S3: one gzipped JSON object, replaced whole by each run (a versioned
 * bucket keeps the previous ones).
 */
export const s3VerdictSnapshotStore = (
  objects: ObjectStore,
  bucket: string,
  objectKey = 'verdicts/snapshot.json.gz',
  rebuildKey = 'verdicts/rebuild.json.gz',
): VerdictSnapshotStore => ({
  async latest() {
    const bytes = await objects.getObject(bucket, objectKey);
    return bytes ? decode(bytes) : undefined;
  },
  async save(snapshot) {
    await objects.putObject(bucket, objectKey, await encode(snapshot), 'application/gzip');
  },
  async rebuild() {
    return decodeRebuild(await objects.getObject(bucket, rebuildKey));
  },
  async saveRebuild(rebuild) {
    const body = rebuild === undefined ? new Uint8Array() : await encode(rebuild);
    await objects.putObject(bucket, rebuildKey, body, 'application/gzip');
  },
});

const readIfPresent = async (file: string): Promise<Buffer | undefined> => {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** Write beside, then rename: a reader sees the old file or the new one, never part of one. */
const replaceFile = async (dir: string, file: string, bytes: Buffer) => {
  await mkdir(dir, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
};

/**
 * Verdict snapshots as a local file, `<dir>/verdicts.json.gz`, replaced atomically (write, then
 * rename); an unfinished rebuild beside it, `<dir>/rebuild.json.gz`.
 */
export const fileVerdictSnapshotStore = (dir: string): VerdictSnapshotStore => {
  const file = join(dir, 'verdicts.json.gz');
  const rebuildFile = join(dir, 'rebuild.json.gz');
  return {
    async latest() {
      const bytes = await readIfPresent(file);
      return bytes ? decode(bytes) : undefined;
    },
    async save(snapshot) {
      await replaceFile(dir, file, await encode(snapshot));
    },
    async rebuild() {
      return decodeRebuild(await readIfPresent(rebuildFile));
    },
    async saveRebuild(rebuild) {
      if (rebuild === undefined) await rm(rebuildFile, { force: true });
      else await replaceFile(dir, rebuildFile, await encode(rebuild));
    },
  };
};
