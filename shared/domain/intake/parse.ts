import { BadRequestError } from '../../errors.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import { entryKeyOf, isTopLevelLabel, type PublicSuffixes } from '../check/index.ts';

/** One asset found in a text: its canonical content and type, and where it stands in the text (UTF-16 offsets, `end` exclusive). */
export type ParsedAsset = { content: string; type: AssetType; start: number; end: number };

export const MAX_PARSE_LENGTH = 20_000;

/**
 * Defanged writing that security people use so a link cannot be clicked: `hxxp(s)`, `[.]`,
 * `(.)`, `{.}`, `[dot]`, `(dot)`, `[:]`, `[://]`. Each is read as what it stands for.
 */
const DEFANGED = /hxxp|h\*\*p|\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\[:\]|\[:\/\/\]/giu;
const refanged = (token: string): string => {
  const lower = token.toLowerCase();
  if (lower === 'hxxp' || lower === 'h**p') return 'http';
  if (lower === '[:]') return ':';
  if (lower === '[://]') return '://';
  return '.';
};

/** The text with defanging undone, and for each of its characters the span of the original it came from. */
const refang = (text: string) => {
  let plain = '';
  const from: number[] = [];
  const to: number[] = [];
  let last = 0;
  const copy = (start: number, end: number) => {
    for (let i = start; i < end; i++) {
      plain += text[i];
      from.push(i);
      to.push(i + 1);
    }
  };
  for (const match of text.matchAll(DEFANGED)) {
    copy(last, match.index);
    const end = match.index + match[0].length;
    for (const char of refanged(match[0])) {
      plain += char;
      from.push(match.index);
      to.push(end);
    }
    last = end;
  }
  copy(last, text.length);
  return { plain, from, to };
};

const PATH = String.raw`[^\s<>"'\x60\[\]{}|\\^]`;
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?`;
const TOP = String.raw`(?:\p{L}{2,63}|xn--[a-z0-9-]{2,59})`;
const SCAN = new RegExp(
  [
    String.raw`(?<url>(?<![\p{L}\p{N}])(?:https?|wss?|ftp):\/\/${PATH}+)`,
    String.raw`(?<email>(?<![\p{L}\p{N}._%+-])[A-Za-z0-9._%+-]+@(?:${LABEL}\.)+${TOP}(?![\p{L}\p{N}-]))`,
    String.raw`(?<evm>(?<![\p{L}\p{N}])0x[0-9a-fA-F]{40}(?![\p{L}\p{N}]))`,
    String.raw`(?<bech32>(?<![\p{L}\p{N}])[a-z]{1,20}1[02-9ac-hj-np-z]{20,90}(?![\p{L}\p{N}]))`,
    String.raw`(?<domain>(?<![\p{L}\p{N}_@.\/-])(?:${LABEL}\.)+${TOP}(?![\p{L}\p{N}-])(?::\d{2,5})?(?:\/${PATH}*)?)`,
    String.raw`(?<handle>(?<![\p{L}\p{N}_.@\/])@[A-Za-z0-9_]{1,50}(?![A-Za-z0-9_@]|\.[\p{L}\p{N}]))`,
    String.raw`(?<base58>(?<![\p{L}\p{N}])[1-9A-HJ-NP-Za-km-z]{32,44}(?![\p{L}\p{N}]))`,
  ].join('|'),
  'giu',
);

/** Punctuation that ends a sentence or closes a quote or markdown, never the end of an asset. */
const TRAILING = new Set([')', '.', ',', ';', ':', '!', '?', "'", '"', '»', '*', '~', '_']);
/** Mentions every chat platform has; not accounts. */
const NOT_HANDLES = new Set(['@everyone', '@here', '@channel', '@all']);

const count = (text: string, char: string): number => text.split(char).length - 1;

/** The token without trailing punctuation; a `)` stays when it closes a `(` of the token (`wiki/Foo_(bar)`). */
const trimmed = (token: string, kind: string): string => {
  let end = token.length;
  while (end > 0) {
    const char = token[end - 1] as string;
    if (!TRAILING.has(char)) break;
    // A handle may end in `_`; a URL path keeps a `)` that closes one of its own `(`.
    if (char === '_' && kind === 'handle') break;
    if (char === ')' && count(token.slice(0, end), '(') >= count(token.slice(0, end), ')')) break;
    end--;
  }
  return token.slice(0, end);
};

/** A bare domain counts only under a top-level domain that exists (so `index.html` and `e.g.` are not domains). */
const knownTop = (suffixes: PublicSuffixes, token: string): boolean => {
  const host = token.split(/[/:]/u)[0] as string;
  const top = host.slice(host.lastIndexOf('.') + 1).toLowerCase();
  return isTopLevelLabel(suffixes, top);
};

/** Base58 runs of 32+ characters are addresses only when they mix cases and digits, as keys do and words do not. */
const looksLikeKey = (token: string): boolean => /\d/u.test(token) && /[A-Z]/u.test(token) && /[a-z]/u.test(token);

const kindOf = (groups: Record<string, string | undefined>): string =>
  Object.entries(groups).find(([, value]) => value !== undefined)?.[0] ?? '';

const canonicalOf = (
  suffixes: PublicSuffixes,
  token: string,
  kind: string,
): { content: string; type: AssetType } | undefined => {
  if (kind === 'handle' && NOT_HANDLES.has(token.toLowerCase())) return undefined;
  if (kind === 'domain' && !knownTop(suffixes, token)) return undefined;
  if (kind === 'base58' && !looksLikeKey(token)) return undefined;
  const type = detectAssetType(suffixes, token);
  if (type === undefined) return undefined;
  const content = entryKeyOf(suffixes, token, type) ?? (type === 'ADDRESS' ? token : undefined);
  return content === undefined ? undefined : { content, type };
};

/**
 * `POST /asset/parse`: every URL, domain, e-mail, blockchain address, `@handle` and invite link
 * in a chat message or any text, in the order they appear, each once (by canonical content).
 * Defanging is undone first; markdown link syntax and trailing punctuation are not part of an
 * asset; each asset is canonicalized as the asset check reads it, so that checking `content`
 * gives the verdict of what the text links to.
 */
export const parseAssets = (suffixes: PublicSuffixes, text: string): ParsedAsset[] => {
  const { plain, from, to } = refang(text);
  const found: ParsedAsset[] = [];
  const seen = new Set<string>();
  for (const match of plain.matchAll(SCAN)) {
    const kind = kindOf(match.groups ?? {});
    const token = trimmed(match[0], kind);
    if (token.length === 0) continue;
    const asset = canonicalOf(suffixes, token, kind);
    if (asset === undefined || seen.has(asset.content)) continue;
    seen.add(asset.content);
    found.push({
      ...asset,
      start: from[match.index] as number,
      end: to[match.index + token.length - 1] as number,
    });
  }
  return found;
};

/** One asset as `POST /asset/parse` answers it: its normalized content, the content as sent, and its type. */
export type NormalizedAsset = { content: string; submittedContent: string; type: AssetType };

/**
 * `POST /asset/parse` with `{content}`: the asset the content is, normalized as the published
 * glossary says, or null when no asset type fits. A URL loses its scheme, user, password, port,
 * query, fragment and trailing slash, and its host is lower-case punycode; a page on a hosting or
 * link platform (`PAGE`) is kept as sent, only trimmed; an address is lower-cased; a handle or
 * profile becomes the canonical profile URL and an e-mail address its lower-case domain form.
 */
export const parseAsset = (suffixes: PublicSuffixes, submittedContent: string): NormalizedAsset | null => {
  const trimmed = submittedContent.trim();
  const type = detectAssetType(suffixes, trimmed);
  if (type === undefined) return null;
  if (type === 'PAGE') return { content: trimmed, submittedContent, type };
  const key = entryKeyOf(suffixes, trimmed, type) ?? (type === 'ADDRESS' ? trimmed : undefined);
  if (key === undefined) return null;
  return { content: type === 'EMAIL' ? key.replace(/^mailto:/u, '') : key, submittedContent, type };
};

/** The body decides which parse it asks for: `{content}` one asset (the published contract), `{text}` every asset in a text. */
export const parseRequest = (suffixes: PublicSuffixes, { content, text }: { content?: string; text?: string }) => {
  if (content !== undefined && text !== undefined) throw new BadRequestError('Send either content or text, not both');
  if (content !== undefined) return parseAsset(suffixes, content);
  if (text !== undefined) return { assets: parseAssets(suffixes, text) };
  throw new BadRequestError('content is required');
};
