import { readFileSync } from 'node:fs';

/** tldts's own flat tables of the list (no package export names them; their types ship beside them). */
export const trie = (await import(
  'tldts/dist/es6/src/data/trie.js' as string
)) as typeof import('tldts/dist/types/src/data/trie.d.ts');

export { PUBLIC_SUFFIXES_FILE } from '../../shared/domain/check/index.ts';

const { version } = JSON.parse(readFileSync('node_modules/tldts/package.json', 'utf8')) as { version: string };

/** Start of each edge's label in tldts's `labelText`, which holds every label in edge order. */
const offsets = (() => {
  const starts = new Uint32Array(trie.edgeLength.length);
  for (let edge = 0, offset = 0; edge < starts.length; edge++) {
    starts[edge] = offset;
    offset += trie.edgeLength[edge] ?? 0;
  }
  return starts;
})();

/**
 * One trie of tldts's flat tables as nested text: each node is its flag (0 a step on the way,
 * 1 ICANN, 2 private), its label and, in parentheses, its children separated by commas.
 */
const pack = (node: number): string => {
  const children: string[] = [];
  for (let edge = trie.edgeStart[node] ?? 0; edge < (trie.edgeStart[node + 1] ?? 0); edge++) {
    const start = offsets[edge] ?? 0;
    const label = trie.labelText.slice(start, start + (trie.edgeLength[edge] ?? 0));
    if (/[(),]/.test(label)) throw new Error(`Label ${label} cannot be packed`);
    const child = trie.edgeChild[edge] ?? 0;
    const below = pack(child);
    children.push(`${trie.nodeFlags[child]}${label}${below ? `(${below})` : ''}`);
  }
  return children.join(',');
};

/** The Public Suffix List as the installed tldts holds it, in the form the check loads. */
export const packPublicSuffixes = (): string =>
  `${JSON.stringify({ source: `tldts ${version}`, rules: pack(trie.rulesRoot), exceptions: pack(trie.exceptionsRoot) })}\n`;
