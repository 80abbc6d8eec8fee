import { chmod, link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type JwkSet,
  newSigningKey,
  parseKeySet,
  publishedKeys,
  type SigningKeySet,
  type SigningKeyStore,
} from '../domain/blocklist/signing-keys.ts';
import type { ObjectStore } from './s3.ts';

/** Where the signer publishes the public key set in the artifacts bucket, for the key set route. */
const PUBLISHED_KEYS = 'blocklist/keys.json';

const readIfPresent = async (file: string): Promise<string | undefined> => {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** Writes beside the file, readable by its owner only, then moves it in place (`link` when it must not exist yet). */
const writeKeyFile = async (file: string, set: SigningKeySet, exclusive: boolean): Promise<boolean> => {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.${Date.now()}.partial`;
  await writeFile(partial, `${JSON.stringify(set, null, 2)}\n`, { mode: 0o600 });
  await chmod(partial, 0o600);
  if (!exclusive) {
    await rename(partial, file);
    return true;
  }
  try {
    await link(partial, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(partial);
  }
};

/**
 * The signing keys in a file of the checkout (`.data/`, locally), created with a first key on first
 * use; processes that race to create it all end up with the one that was linked in first.
 */
export const fileSigningKeys = (file: string, now: () => number = Date.now): SigningKeyStore => ({
  async load() {
    const text = await readIfPresent(file);
    if (text !== undefined) return parseKeySet(text);
    const created = { keys: [await newSigningKey(now())] };
    if (await writeKeyFile(file, created, true)) return created;
    return parseKeySet(await readFile(file, 'utf8'));
  },
  save: async (set) => {
    await writeKeyFile(file, set, false);
  },
});

/** Where the key set route reads the public keys: what the signer published, or (locally) the key file itself. */
export type PublishedKeySource = () => Promise<JwkSet>;

/** The public keys the signer published in the artifacts bucket; none before its first manifest. */
export const s3PublishedKeys = (objects: ObjectStore, bucket: string) => ({
  read: async (): Promise<JwkSet> => {
    const bytes = await objects.getObject(bucket, PUBLISHED_KEYS);
    return bytes === undefined ? { keys: [] } : (JSON.parse(Buffer.from(bytes).toString('utf8')) as JwkSet);
  },
  publish: (keys: JwkSet) =>
    objects.putObject(bucket, PUBLISHED_KEYS, Buffer.from(JSON.stringify(keys)), 'application/json', 'no-store'),
});

/** The public half of a key store's keys, as they stand now. */
export const publicKeysOf =
  (store: SigningKeyStore, now: () => number = Date.now): PublishedKeySource =>
  async () =>
    publishedKeys(await store.load(), now());
