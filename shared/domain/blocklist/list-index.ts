import type { ExternalLists, ExternalSourceName, SourceName } from '../check/index.ts';
import { encodeArtifact, sortedUnique, tokenOf } from './artifact.ts';
import { ALGO_VERSION, entryExpressions, fullHash, prefixOf } from './expressions.ts';
import { sha256Hex } from './manifest.ts';

/** What each list (and the service) says of one expression. */
export type Verdicts = Partial<Record<SourceName, 'ALLOWED' | 'BLOCKED'>>;

/**
 * The external lists as the blocklist publishes them: every entry's expressions with what its list
 * says of them (an allowlisted entry ALLOWED, else BLOCKED: at one entry the allowlisting wins, as
 * in the check), the prefixes of the BLOCKED ones in the lists artifact, and the look-alike rule
 * beside them. Built whole when the lists change (they change as a list sync saves a snapshot).
 */
export type ListIndex = {
  /** The lists' content version (`ExternalLists.version`); empty when no list is published. */
  version: string;
  /** The lists artifact: its reference, SHA-256 and served bytes. */
  artifact: { token: string; count: number; bytes: number; sha256: string; content: Uint8Array };
  /** Every listed expression under a prefix, by full hash. */
  under(prefix: number): readonly [string, Verdicts][];
};

const mark = (
  byPrefix: Map<number, [string, Verdicts][]>,
  expression: string,
  source: ExternalSourceName,
  status: 'ALLOWED' | 'BLOCKED',
) => {
  const hash = fullHash(expression);
  const prefix = prefixOf(hash);
  let held = byPrefix.get(prefix);
  if (held === undefined) {
    held = [];
    byPrefix.set(prefix, held);
  }
  const found = held.find(([other]) => other === hash);
  if (found === undefined) held.push([hash, { [source]: status }]);
  else if (found[1][source] !== 'ALLOWED') found[1][source] = status;
};

/** The index of `lists`; with none (the stage publishes only the service's verdicts), an empty one. */
export const listIndexOf = (lists: ExternalLists | undefined): ListIndex => {
  const byPrefix = new Map<number, [string, Verdicts][]>();
  if (lists !== undefined) {
    const eth = 'eth-phishing-detect';
    for (const domain of lists.eth.allow) mark(byPrefix, `${domain}/`, eth, 'ALLOWED');
    for (const domain of lists.eth.block) mark(byPrefix, `${domain}/`, eth, 'BLOCKED');
    for (const { name, allow, deny } of lists.keyLists) {
      for (const key of allow)
        for (const expression of entryExpressions(key)) mark(byPrefix, expression, name, 'ALLOWED');
      for (const key of deny)
        for (const expression of entryExpressions(key)) mark(byPrefix, expression, name, 'BLOCKED');
    }
  }
  const blocking: number[] = [];
  for (const [prefix, held] of byPrefix) {
    if (held.some(([, verdicts]) => Object.values(verdicts).includes('BLOCKED'))) blocking.push(prefix);
  }
  const prefixes = sortedUnique(blocking);
  const lookalikes =
    lists === undefined ? { tolerance: 0, domains: [] } : { tolerance: lists.eth.tolerance, domains: lists.eth.fuzzy };
  const content = encodeArtifact({ kind: 'lists', algoVersion: ALGO_VERSION, prefixes, lookalikes });
  return {
    version: lists?.version ?? '',
    artifact: {
      token: tokenOf(content),
      count: prefixes.length,
      bytes: content.length,
      sha256: sha256Hex(content),
      content,
    },
    under: (prefix) => byPrefix.get(prefix) ?? [],
  };
};
