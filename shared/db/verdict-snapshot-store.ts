import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { VerdictSnapshot, VerdictSnapshotStore } from '../domain/check/verdicts.ts';
import type { ObjectStore } from './s3.ts';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

const encode = (snapshot: VerdictSnapshot): Promise<Buffer> => zip(JSON.stringify(snapshot));

const decode = async (bytes: Uint8Array): Promise<VerdictSnapshot> => {
  const snapshot = JSON.parse((await unzip(bytes)).toString('utf8')) as VerdictSnapshot;
  if (snapshot.format !== 1) throw new Error(`Verdict snapshot format ${String(snapshot.format)} is not readable here`);
  return snapshot;
};

/**
 * Verdict snapshots in S3: one gzipped JSON object, replaced whole by each run (a versioned
 * bucket keeps the previous ones).
 */
export const s3VerdictSnapshotStore = (
  objects: ObjectStore,
  bucket: string,
  objectKey = 'verdicts/snapshot.json.gz',
): VerdictSnapshotStore => ({
  async latest() {
    const bytes = await objects.getObject(bucket, objectKey);
    return bytes ? decode(bytes) : undefined;
  },
  async save(snapshot) {
    await objects.putObject(bucket, objectKey, await encode(snapshot), 'application/gzip');
  },
});

/** Verdict snapshots as a local file, `<dir>/verdicts.json.gz`, replaced atomically (write, then rename). */
export const fileVerdictSnapshotStore = (dir: string): VerdictSnapshotStore => {
  const file = join(dir, 'verdicts.json.gz');
  return {
    async latest() {
      try {
        return await decode(await readFile(file));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async save(snapshot) {
      await mkdir(dir, { recursive: true });
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, await encode(snapshot));
      await rename(partial, file);
    },
  };
};
