import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type PackedSuffixes,
  PUBLIC_SUFFIXES_FILE,
  type PublicSuffixes,
  publicSuffixes,
  type SuffixSource,
} from '../../domain/check/index.ts';

/** The packed list shipped beside the code: the project root locally, the function's directory in Lambda. */
export const suffixFile: SuffixSource = () =>
  JSON.parse(readFileSync(resolve(process.cwd(), PUBLIC_SUFFIXES_FILE), 'utf8')) as PackedSuffixes;

/** The shipped list as suffix data, read at its first lookup: what a process's composition passes on. */
export const shippedSuffixes = (): PublicSuffixes => publicSuffixes(suffixFile);
