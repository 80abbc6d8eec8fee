import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type {
  EthPhishingConfig,
  ExternalSourceName,
  ListSnapshot,
  SnapshotPointer,
  SnapshotStore,
} from '../domain/check/index.ts';
import type { ObjectStore } from './s3.ts';

/**
 * The list eth-phishing-detect ships, relative to the working directory: the project root locally,
 * the bundle (`/var/task`, where the function's `files` are copied) in Lambda. A file rather than
 * an import, so that the 300 kB list is neither in the bundle nor parsed at cold start.
 */
export const SHIPPED_ETH_LIST = 'node_modules/eth-phishing-detect/src/config.json';

/** Read only when a list load needs it: when no snapshot of eth-phishing-detect was synced. */
export const readShippedEthList = async (): Promise<EthPhishingConfig> =>
  JSON.parse(await readFile(resolve(process.cwd(), SHIPPED_ETH_LIST), 'utf8')) as EthPhishingConfig;

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
export const s3SnapshotStore = (objects: ObjectStore, bucket: string, prefix = 'lists'): SnapshotStore => {
  const getJson = async <T>(objectKey: string): Promise<T | undefined> => {
    const bytes = await objects.getObject(bucket, objectKey);
    return bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as T) : undefined;
  };
  const putJson = (objectKey: string, value: unknown) =>
    objects.putObject(bucket, objectKey, Buffer.from(JSON.stringify(value)), 'application/json');
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
