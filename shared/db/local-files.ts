import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The bytes of a local file; undefined when there is none. */
export const readIfPresent = async (file: string): Promise<Buffer | undefined> => {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** Write beside, then rename: a reader sees the old file or the new one, never part of one. */
export const replaceFile = async (file: string, bytes: Uint8Array | string): Promise<void> => {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
};
