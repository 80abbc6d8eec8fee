import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { FeedDelta, FeedPointer, FeedStore } from '../domain/verdict-feed/index.ts';
import type { ObjectStore } from './s3.ts';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

/**
 * The pointer is written as this many copies and each reader reads one (chosen at random once), so
 * 2,000 containers polling four times a second (and again shortly when a pointer is late) make
 * ~1,000–1,200 GETs/s of each copy: S3 serves 5,500 GET/s per prefix. Deltas are spread over
 * `DELTA_PREFIXES` prefixes by number for the same reason.
 */
export const POINTER_COPIES = 8;
export const DELTA_PREFIXES = 16;

const decodeDelta = async (bytes: Uint8Array): Promise<FeedDelta> => {
  const delta = JSON.parse((await unzip(bytes)).toString('utf8')) as FeedDelta;
  if (delta.format !== 1) throw new Error(`Verdict delta format ${String(delta.format)} is not readable here`);
  return delta;
};
const decodePointer = (bytes: Uint8Array): FeedPointer => {
  const pointer = JSON.parse(Buffer.from(bytes).toString('utf8')) as FeedPointer;
  if (pointer.format !== 1) throw new Error(`Verdict feed format ${String(pointer.format)} is not readable here`);
  return pointer;
};

const deltaPath = (seq: number) => `${seq % DELTA_PREFIXES}/${seq}.json.gz`;
const pointerPath = (copy: number) => `pointer/${copy}.json`;
const readCopy = () => Math.floor(Math.random() * POINTER_COPIES);

/**
 * The verdict feed in S3 under `prefix`: `<n % 16>/<n>.json.gz` per delta, written once
 * (If-None-Match), and `pointer/<copy>.json`. Deltas are kept by the bucket's lifecycle rule.
 */
export const s3FeedStore = (objects: ObjectStore, bucket: string, prefix = 'verdicts/feed'): FeedStore => {
  const copy = readCopy();
  return {
    async pointer() {
      const bytes = await objects.getObject(bucket, `${prefix}/${pointerPath(copy)}`);
      return bytes ? decodePointer(bytes) : undefined;
    },
    async delta(seq) {
      const bytes = await objects.getObject(bucket, `${prefix}/${deltaPath(seq)}`);
      return bytes ? decodeDelta(bytes) : undefined;
    },
    async putDelta(delta) {
      return objects.putNewObject(
        bucket,
        `${prefix}/${deltaPath(delta.seq)}`,
        await zip(JSON.stringify(delta)),
        'application/gzip',
      );
    },
    async putPointer(pointer) {
      const body = Buffer.from(JSON.stringify(pointer));
      await Promise.all(
        Array.from({ length: POINTER_COPIES }, (_, i) =>
          objects.putObject(bucket, `${prefix}/${pointerPath(i)}`, body, 'application/json', 'no-store'),
        ),
      );
    },
  };
};

const readIfPresent = async (file: string): Promise<Buffer | undefined> => {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** Deltas a local feed keeps (about 80 minutes at two a second); older ones are removed as new ones come. */
const LOCAL_KEPT = 10_000;

/**
 * The verdict feed as local files under `dir`, laid out as in S3. A delta is written beside its
 * name and linked to it, so it is created once and whole (a second writer's link fails); the
 * pointer is replaced by rename.
 */
export const fileFeedStore = (dir: string): FeedStore => {
  const copy = readCopy();
  return {
    async pointer() {
      const bytes = await readIfPresent(join(dir, pointerPath(copy)));
      return bytes ? decodePointer(bytes) : undefined;
    },
    async delta(seq) {
      const bytes = await readIfPresent(join(dir, deltaPath(seq)));
      return bytes ? decodeDelta(bytes) : undefined;
    },
    async putDelta(delta) {
      const file = join(dir, deltaPath(delta.seq));
      await mkdir(join(file, '..'), { recursive: true });
      const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
      await writeFile(partial, await zip(JSON.stringify(delta)));
      try {
        await link(partial, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      } finally {
        await rm(partial, { force: true });
      }
      if (delta.seq > LOCAL_KEPT) await rm(join(dir, deltaPath(delta.seq - LOCAL_KEPT)), { force: true });
      return true;
    },
    async putPointer(pointer) {
      await mkdir(join(dir, 'pointer'), { recursive: true });
      const body = JSON.stringify(pointer);
      await Promise.all(
        Array.from({ length: POINTER_COPIES }, async (_, i) => {
          const file = join(dir, pointerPath(i));
          const partial = `${file}.${process.pid}.partial`;
          await writeFile(partial, body);
          await rename(partial, file);
        }),
      );
    },
  };
};
