import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  hasSuffixSource,
  type PackedSuffixes,
  PUBLIC_SUFFIXES_FILE,
  type SuffixSource,
  useSuffixSource,
} from '../../domain/check/index.ts';

/** The packed list shipped beside the code: the project root locally, the function's directory in Lambda. */
export const suffixFile: SuffixSource = () =>
  JSON.parse(readFileSync(resolve(process.cwd(), PUBLIC_SUFFIXES_FILE), 'utf8')) as PackedSuffixes;

/** Installs `suffixFile` as the process's suffix data unless a source is installed already (a test's own). */
export const useSuffixFile = (): void => {
  if (!hasSuffixSource()) useSuffixSource(suffixFile);
};
