import { join } from 'node:path';
import type { ArtifactStore, SnapshotPointer } from '../domain/blocklist/blocklist.ts';
import { readIfPresent, replaceFile } from './local-files.ts';
import type { ObjectStore } from './s3.ts';

/** How an artifact is answered: by its token, so it never changes. */
export const ARTIFACT_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** The gzip is the artifact's content, not a transfer encoding: no `Content-Encoding` lets a client unpack it first. */
export const ARTIFACT_CONTENT_TYPE = 'application/octet-stream';
/** Where artifacts live in the bucket; the CDN serves this prefix. */
export const ARTIFACT_PREFIX = 'blocklist/artifacts/';
const POINTER_KEY = 'blocklist/current.json';

const parsePointer = (bytes: Uint8Array | undefined): SnapshotPointer | undefined =>
  bytes === undefined || bytes.length === 0
    ? undefined
    : (JSON.parse(Buffer.from(bytes).toString('utf8')) as SnapshotPointer);

/** Artifacts in S3 under `blocklist/artifacts/<token>`, with the headers the CDN passes on. */
export const s3ArtifactStore = (objects: ObjectStore, bucket: string): ArtifactStore => ({
  get: (token) => objects.getObject(bucket, `${ARTIFACT_PREFIX}${token}`),
  put: (token, bytes) =>
    objects.putObject(bucket, `${ARTIFACT_PREFIX}${token}`, bytes, ARTIFACT_CONTENT_TYPE, ARTIFACT_CACHE_CONTROL),
  current: async () => parsePointer(await objects.getObject(bucket, POINTER_KEY)),
  setCurrent: (pointer) =>
    objects.putObject(bucket, POINTER_KEY, Buffer.from(JSON.stringify(pointer)), 'application/json', 'no-store'),
});

/** Artifacts as files of a local directory (`npm start`): `<dir>/<token>` and `<dir>/current.json`. */
export const fileArtifactStore = (dir: string): ArtifactStore => ({
  get: (token) => readIfPresent(join(dir, token)),
  put: (token, bytes) => replaceFile(join(dir, token), bytes),
  current: async () => parsePointer(await readIfPresent(join(dir, 'current.json'))),
  setCurrent: (pointer) => replaceFile(join(dir, 'current.json'), Buffer.from(JSON.stringify(pointer))),
});

/** Artifacts in the process's memory: the local gateway serves every route from one process. */
export const memoryArtifactStore = (): ArtifactStore => {
  const artifacts = new Map<string, Uint8Array>();
  let pointer: SnapshotPointer | undefined;
  return {
    get: async (token) => artifacts.get(token),
    put: async (token, bytes) => {
      artifacts.set(token, bytes);
    },
    current: async () => pointer,
    setCurrent: async (next) => {
      pointer = next;
    },
  };
};
