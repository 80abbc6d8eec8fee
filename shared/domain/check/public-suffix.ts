/**
 * The compact Public Suffix List (`npm run public-suffixes` writes it), relative to the project
 * root here and to the function's directory in Lambda: every function ships it beside its bundle
 * (`infra/api-function.ts`) rather than in it, so that no function parses 100 kB of it at load.
 */
export const PUBLIC_SUFFIXES_FILE = 'shared/domain/check/public-suffixes.json';

/** The packed list: the rules and the exception rules, each a trie written as text. */
export type PackedSuffixes = { rules: string; exceptions: string };

/**
 * The check's suffix data port: where the packed list comes from. Asked once, on the first lookup
 * (a route that never looks a suffix up never reads it); the adapters read the shipped file.
 */
export type SuffixSource = () => PackedSuffixes;

/**
 * Each node of a trie by its path (`co.uk`, `*.ck`; the root is `''`): 0 a step on the way, 1 an
 * ICANN rule, 2 a private rule, plus WILDCARD_BELOW when `*.<path>` is a node too.
 */
type Paths = Map<string, number>;
/** A node whose path has no wildcard label, found by `suffixHash` of its path. */
type Suffix = { path: string; flag: number };
/**
 * `paths`, and its nodes without a wildcard label by the hash of their path: a walk up a host's
 * labels looks each of the host's suffixes up with a hash made label by label, compared in place,
 * with no string made for it (most walks take no wildcard). A top-level label's subtree is decoded
 * from `text` the first time a host ends in that label (`pending` holds where each one starts):
 * decoding the whole list took about 20 ms of a function's first request, and a container meets
 * few of the 1,500 top-level labels.
 */
type Trie = { paths: Paths; suffixes: Map<number, Suffix[]>; text: string; pending: Map<string, number> };

const WILDCARD_BELOW = 4;
const ICANN = 1;
const ICANN_OR_PRIVATE = 3;
const CHAR = { dot: 0x2e, open: 0x28, close: 0x29, comma: 0x2c, zero: 0x30 } as const;

const isSyntax = (code: number) => code === CHAR.open || code === CHAR.close || code === CHAR.comma;

/** FNV-1a over a suffix's code units from its last to its first: extended to the left one character at a time. */
const HASH_START = 0x811c9dc5 | 0;
const hashLeft = (hash: number, code: number): number => Math.imul(hash ^ code, 0x01000193);
/** A hash as a map key: 30 bits, a small integer to V8, so a lookup boxes no number. */
const keyOf = (hash: number): number => hash & 0x3fffffff;
const suffixHash = (text: string): number => {
  let hash = HASH_START;
  for (let i = text.length - 1; i >= 0; i--) hash = hashLeft(hash, text.charCodeAt(i));
  return keyOf(hash);
};

const addSuffix = (suffixes: Trie['suffixes'], path: string, flag: number): void => {
  if (path === '*' || path.startsWith('*.') || path.includes('.*')) return;
  const hash = suffixHash(path);
  const same = suffixes.get(hash);
  if (same) same.push({ path, flag });
  else suffixes.set(hash, [{ path, flag }]);
};

/**
 * Decodes the top-level entry of `trie.text` that starts at `from` (flag, label, `(children)`,
 * comma-separated, as `infra/local/public-suffixes.ts` writes them) into `paths` and `suffixes`.
 */
const decodeEntry = (trie: Trie, from: number): void => {
  const { text, paths } = trie;
  const added: string[] = [];
  const parents = [''];
  let last = '';
  for (let i = from; i < text.length; ) {
    const code = text.charCodeAt(i);
    if (code === CHAR.comma && parents.length === 1) break;
    if (code === CHAR.open) parents.push(last);
    else if (code === CHAR.close) parents.pop();
    if (isSyntax(code)) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < text.length && !isSyntax(text.charCodeAt(end))) end++;
    const label = text.slice(i + 1, end);
    const parent = parents[parents.length - 1] as string;
    last = parent === '' ? label : `${label}.${parent}`;
    paths.set(last, code - CHAR.zero);
    added.push(last);
    i = end;
  }
  for (const path of added) {
    if (path === '*' || path.startsWith('*.')) {
      const parent = path.slice(2);
      paths.set(parent, (paths.get(parent) ?? 0) | WILDCARD_BELOW);
    }
  }
  for (const path of added) addSuffix(trie.suffixes, path, paths.get(path) as number);
};

/** Where each top-level entry of `text` starts; a top-level `*` (any label) is decoded at once, for the root's flag. */
const trieOf = (text: string): Trie => {
  const trie: Trie = { paths: new Map(), suffixes: new Map(), text, pending: new Map() };
  for (let i = 0; i < text.length; i++) {
    let end = i + 1;
    while (end < text.length && !isSyntax(text.charCodeAt(end))) end++;
    const label = text.slice(i + 1, end);
    if (label === '*') decodeEntry(trie, i);
    else trie.pending.set(label, i);
    for (let depth = 0, j = end; j <= text.length; j++) {
      const code = text.charCodeAt(j);
      if (code === CHAR.open) depth++;
      else if (code === CHAR.close) depth--;
      else if (j === text.length || (code === CHAR.comma && depth === 0)) {
        i = j;
        break;
      }
    }
  }
  return trie;
};

/** Decodes the subtree of the top-level label `host` ends in (from `start`) if it is still pending; whether it was. */
const decodePending = (trie: Trie, host: string, start: number): boolean => {
  if (trie.pending.size === 0) return false;
  const label = host.slice(start);
  const from = trie.pending.get(label);
  if (from === undefined) return false;
  trie.pending.delete(label);
  decodeEntry(trie, from);
  return true;
};

/** Every pending entry decoded (the exceptions: a few dozen characters). */
const decodeAll = (trie: Trie): Trie => {
  for (const from of trie.pending.values()) decodeEntry(trie, from);
  trie.pending.clear();
  return trie;
};

/**
 * The labels an exception's path can end in (`ck`, `jp`), or undefined when a wildcard at the top
 * lets any label start one. A host whose last label is none of them has no exception, and is
 * answered without a walk of the exceptions (most hosts).
 */
const lastLabelsOf = ({ paths }: Trie): string[] | undefined =>
  ((paths.get('') ?? 0) & WILDCARD_BELOW) !== 0
    ? undefined
    : [...paths.keys()].filter((path) => path !== '' && !path.includes('.'));

type Tries = { rules: Trie; exceptions: Trie; exceptionLabels: string[] | undefined };

const triesOf = (packed: PackedSuffixes): Tries => {
  const exceptions = decodeAll(trieOf(packed.exceptions));
  return { rules: trieOf(packed.rules), exceptions, exceptionLabels: lastLabelsOf(exceptions) };
};

/**
 * A composition's Public Suffix data, made from its `SuffixSource` by `publicSuffixes` and passed
 * to every lookup: the source is read on the first lookup, a top-level label's rules decoded when
 * a host first ends in it, and both kept in the value.
 */
export type PublicSuffixes = {
  /** The tries of the source's packed list: the source is read and indexed on the first call. */
  readonly tries: () => Tries;
};

/** The suffix data read from `source` when first looked up. */
export const publicSuffixes = (source: SuffixSource): PublicSuffixes => {
  let tries: Tries | undefined;
  return {
    tries: () => {
      tries ??= triesOf(source());
      return tries;
    },
  };
};

/** Whether `label` is a top-level label of the rules (a rule of its own or the start of one): a top-level domain the list knows. */
export const isTopLevelLabel = (suffixes: PublicSuffixes, label: string): boolean => {
  const { rules } = suffixes.tries();
  return label !== '' && (rules.pending.has(label) || rules.paths.has(label));
};

/** Whether the last label of `host` is one of `labels`, compared in place. */
const endsInLabel = (host: string, labels: readonly string[]): boolean => {
  for (const label of labels) {
    const before = host.length - label.length - 1;
    if (host.endsWith(label) && (before < 0 || host.charCodeAt(before) === CHAR.dot)) return true;
  }
  return false;
};

/** The flag of the node whose path is `host` from `start` on (`hash` its `suffixHash`), compared in place. */
const suffixFlag = ({ suffixes }: Trie, host: string, start: number, hash: number): number | undefined => {
  const same = suffixes.get(keyOf(hash));
  if (same === undefined) return undefined;
  const length = host.length - start;
  for (let i = 0; i < same.length; i++) {
    const { path, flag } = same[i] as Suffix;
    if (path.length === length && host.endsWith(path)) return flag;
  }
  return undefined;
};

/**
 * Walks the labels of `host` from the right down `trie` (an exact label first, else `*` for a
 * non-empty one) and returns where the deepest node whose flag is in `mask` starts, or -1.
 */
const deepestMatch = (trie: Trie, host: string, mask: number): number => {
  let match = -1;
  // Until a wildcard is taken, the path is the host's tail from `pathStart`, and the next node's path a longer tail.
  let tail = true;
  let pathStart = host.length;
  let path = '';
  let flags = trie.paths.get('') ?? 0;
  let end = host.length;
  let hash = HASH_START;
  for (let i = host.length - 1; i >= -1; i--) {
    const code = i >= 0 ? host.charCodeAt(i) : CHAR.dot;
    if (code !== CHAR.dot) {
      hash = hashLeft(hash, code);
      continue;
    }
    const start = i + 1;
    let flag: number | undefined;
    if (tail) {
      flag = suffixFlag(trie, host, start, hash);
      // The first label from the right: its subtree may not be decoded yet.
      if (flag === undefined && end === host.length && decodePending(trie, host, start)) {
        flag = suffixFlag(trie, host, start, hash);
      }
      if (flag !== undefined) pathStart = start;
    } else {
      const exact = `${host.slice(start, end)}.${path}`;
      flag = trie.paths.get(exact);
      if (flag !== undefined) path = exact;
    }
    if (flag === undefined) {
      if (start === end || (flags & WILDCARD_BELOW) === 0) break;
      if (tail) path = host.slice(pathStart);
      path = path === '' ? '*' : `*.${path}`;
      flag = trie.paths.get(path) as number;
      tail = false;
    }
    if ((flag & mask) !== 0) match = start;
    flags = flag;
    end = i;
    hash = hashLeft(hash, CHAR.dot);
  }
  return match;
};

/**
 * Length of the public suffix at the end of `hostname`, with the answers of tldts's
 * `getPublicSuffix(hostname, { allowPrivateDomains, extractHostname: false, validateHostname: false,
 * detectIp: false })`: trailing dots ignored, an exception rule before the longest matching rule,
 * and the last label when no rule matches.
 */
export const publicSuffixLength = (
  suffixes: PublicSuffixes,
  hostname: string,
  allowPrivateDomains: boolean,
): number => {
  let length = hostname.length;
  while (length > 1 && hostname.charCodeAt(length - 1) === CHAR.dot) length--;
  const host = length === hostname.length ? hostname : hostname.slice(0, length);
  const mask = allowPrivateDomains ? ICANN_OR_PRIVATE : ICANN;
  const { rules, exceptions, exceptionLabels } = suffixes.tries();
  const exception =
    exceptionLabels === undefined || endsInLabel(host, exceptionLabels) ? deepestMatch(exceptions, host, mask) : -1;
  if (exception >= 0) {
    const labelEnd = host.indexOf('.', exception);
    return labelEnd < 0 ? -1 : host.length - labelEnd - 1;
  }
  const rule = deepestMatch(rules, host, mask);
  if (rule >= 0) return host.length - rule;
  return host.length - host.lastIndexOf('.') - 1;
};
