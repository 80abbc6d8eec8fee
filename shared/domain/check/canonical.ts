import { domainToASCII } from 'node:url';
import type { AssetType } from '../allowlist/asset-types.ts';
import HANDLE_URL_PREFIXES from './handle-urls.json' with { type: 'json' };
import { appendParents, boundaryLength } from './hosting.ts';
import { plainUrl } from './plain-url.ts';
import { cidOf, platformRule } from './platforms.ts';
import type { PublicSuffixes } from './public-suffix.ts';
import { type CheckTarget, type KeyLevel, LEVEL } from './types.ts';

const PARSE_ERROR: CheckTarget = Object.freeze({ kind: 'parse-error' });
const INTERNAL_SCHEME: CheckTarget = Object.freeze({ kind: 'internal-scheme' });
const UNSUPPORTED: CheckTarget = Object.freeze({ kind: 'unsupported-type' });
const PRIVATE: CheckTarget = Object.freeze({ kind: 'private-address' });

/** Character codes compared on the hot path, where `charCodeAt` avoids a one-character string. */
const CHAR = { dot: 0x2e, slash: 0x2f, openBracket: 0x5b } as const;

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
const WEB_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp']);
const INTERNAL_SCHEMES = new Set([
  'about',
  'blob',
  'brave',
  'chrome',
  'chrome-extension',
  'chrome-search',
  'chrome-untrusted',
  'data',
  'devtools',
  'edge',
  'file',
  'filesystem',
  'javascript',
  'moz-extension',
  'ms-browser-extension',
  'opera',
  'resource',
  'safari-extension',
  'safari-web-extension',
  'vbscript',
  'view-source',
  'vivaldi',
]);
/** `host:port` without a scheme parses as scheme `host`; a port after the colon gives it away. */
const PORT_AFTER_COLON = /^\d+(?:[/?#]|$)/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,48}$/;
const EMAIL = /^[^\s@/:?#]+@[^\s@/:?#[\]]+\.[^\s@/:?#]+$/;
const PHONE = /^\+\d[\d\s().-]{5,24}$/;
const HOST = /^[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const IPV4_IN_IPV6 = /^\[(?:::ffff|64:ff9b:):([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;
const PRIVATE_IPV6 = /^\[(?:::1?|f[cd][0-9a-f]*:.*|fe[89ab][0-9a-f]:.*)\]$/;
const PATH_NEEDS_WORK = /%|\/\/|\/\.\.?(?:\/|$)/;
/** Bytes GSB escapes in a path: controls, space, non-ASCII, `#` and `%` (everything outside `!`..`~`, and two inside). */
const UNSAFE_PATH_BYTES = /[^!-~]|[#%]/g;
const ESCAPE = /%([0-9a-fA-F]{2})/g;
const LINE_BREAKS = /[\t\r\n]/;
const LINE_BREAKS_ALL = /[\t\r\n]/g;
const PLAIN_ASCII_HOST = /^[a-z0-9._-]+$/;

/** Mailbox providers: an address there says nothing about the provider's domain. */
const WEBMAIL = new Set([
  '126.com',
  '163.com',
  'aol.com',
  'fastmail.com',
  'gmail.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'googlemail.com',
  'hey.com',
  'hotmail.com',
  'icloud.com',
  'live.com',
  'mac.com',
  'mail.com',
  'mail.ru',
  'me.com',
  'msn.com',
  'outlook.com',
  'pm.me',
  'proton.me',
  'protonmail.com',
  'qq.com',
  'tuta.io',
  'tutanota.com',
  'yahoo.com',
  'yandex.com',
  'yandex.ru',
  'ymail.com',
  'zoho.com',
]);

/** How an asset type's bare handle (`@acme`) is written as the platform URL it stands for: the URL up to the name. */
const HANDLE_URLS: Partial<Record<AssetType, string>> = HANDLE_URL_PREFIXES;
/** Types whose handles may hold dots (Bluesky handles are domains; package names have dots). */
const DOTTED_HANDLES = new Set<AssetType>(['BLUESKY', 'INSTAGRAM', 'NPM', 'PYPI']);
const HANDLE = /^@?[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

const keysTarget = (keys: string[], levels: KeyLevel[], domain?: string): CheckTarget => ({
  kind: 'keys',
  keys,
  levels,
  domain,
});
const single = (key: string): CheckTarget => keysTarget([key], [LEVEL.exact]);

/** A path without its trailing slash, percent-escapes decoded and re-escaped the GSB way, dot segments resolved. */
const normalizePath = (pathname: string): string => {
  if (pathname.length <= 1) return '';
  if (!PATH_NEEDS_WORK.test(pathname)) {
    return pathname.charCodeAt(pathname.length - 1) === CHAR.slash ? pathname.slice(0, -1) : pathname;
  }
  let bytes = pathname;
  for (let round = 0; round < 4 && bytes.includes('%'); round++) {
    const decoded = bytes.replace(ESCAPE, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (decoded === bytes) break;
    bytes = decoded;
  }
  const segments: string[] = [];
  for (const segment of bytes.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else
      segments.push(
        segment.replace(UNSAFE_PATH_BYTES, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`),
      );
  }
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
};

/** Lower case, no empty labels or leading/trailing dots, ASCII letters, digits, `-` and `_` only. */
const cleanHost = (hostname: string): string | undefined => {
  let host = hostname;
  if (host.charCodeAt(0) === CHAR.dot || host.charCodeAt(host.length - 1) === CHAR.dot || host.includes('..')) {
    host = host
      .split('.')
      .filter((label) => label !== '')
      .join('.');
  }
  return host.length > 0 && host.length <= 253 && HOST.test(host) ? host : undefined;
};

/** A list entry's or an email's host as WHATWG URL would give it: lower case, punycode, no trailing dot. */
export const canonicalHost = (text: string): string | undefined => {
  const ascii = PLAIN_ASCII_HOST.test(text) ? text : domainToASCII(text.trim().toLowerCase());
  return ascii === '' ? undefined : cleanHost(ascii);
};

const isPrivateIpv4 = (a: number, b: number): boolean =>
  a === 0 ||
  a === 10 ||
  a === 127 ||
  a >= 224 ||
  (a === 169 && b === 254) ||
  (a === 172 && b >= 16 && b <= 31) ||
  (a === 192 && b === 168) ||
  (a === 100 && b >= 64 && b <= 127);

/** Exact key (host and path), then up to two path-prefix page keys, then the host key itself. */
const appendPathKeys = (hostKey: string, path: string, keys: string[], levels: KeyLevel[]): void => {
  if (path === '') {
    keys.push(hostKey);
    levels.push(LEVEL.exact);
    return;
  }
  keys.push(hostKey + path);
  levels.push(LEVEL.exact);
  const first = path.indexOf('/', 1);
  if (first > 0) {
    const second = path.indexOf('/', first + 1);
    if (second > 0) {
      keys.push(hostKey + path.slice(0, second));
      levels.push(LEVEL.page);
    }
    keys.push(hostKey + path.slice(0, first));
    levels.push(LEVEL.page);
  }
  keys.push(hostKey);
  levels.push(LEVEL.host);
};

const fromIp = (ip: string, pathname: string): CheckTarget => {
  const keys: string[] = [];
  const levels: KeyLevel[] = [];
  appendPathKeys(ip, normalizePath(pathname), keys, levels);
  return keysTarget(keys, levels, ip);
};

const fromIpv6 = (host: string, pathname: string): CheckTarget => {
  const embedded = IPV4_IN_IPV6.exec(host);
  if (embedded) {
    const high = Number.parseInt(embedded[1] as string, 16);
    const low = Number.parseInt(embedded[2] as string, 16);
    if (isPrivateIpv4(high >> 8, high & 255)) return PRIVATE;
    return fromIp(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, pathname);
  }
  return PRIVATE_IPV6.test(host) ? PRIVATE : fromIp(host, pathname);
};

const fromPlatform = (
  rule: NonNullable<ReturnType<typeof platformRule>>,
  host: string,
  pathname: string,
  url: () => URL,
): CheckTarget => {
  const path = normalizePath(pathname);
  const segments = path === '' ? [] : path.slice(1).split('/');
  const tenant = rule(segments, url);
  if (!tenant) return { kind: 'hosting-domain', host };
  const keys: string[] = [];
  const levels: KeyLevel[] = [];
  const rest = segments.length - tenant.used;
  if (rest > 0) {
    const tail = segments.slice(tenant.used);
    if (tenant.nested) tail[0] = (tail[0] as string).toLowerCase();
    keys.push(`${tenant.key}/${tail.join('/')}`);
    levels.push(LEVEL.exact);
    if (tenant.nested && rest > 1) {
      keys.push(`${tenant.key}/${tail[0]}`);
      levels.push(LEVEL.page);
    }
  }
  keys.push(tenant.key);
  levels.push(rest > 0 ? LEVEL.page : LEVEL.exact);
  return keysTarget(keys, levels);
};

const firstSegment = (path: string, from: number): string => {
  const end = path.indexOf('/', from);
  return end < 0 ? path.slice(from) : path.slice(from, end);
};

/** Subdomain gateways put a CIDv1 (59+ base32 characters) in the first label. */
const cidLabel = (host: string): string | undefined => {
  const dot = host.indexOf('.');
  return dot >= 59 ? cidOf(host.slice(0, dot)) : undefined;
};

const fromHost = (suffixes: PublicSuffixes, host: string, pathname: string, url: () => URL): CheckTarget => {
  const bare = host.startsWith('www.') ? host.slice(4) : host;
  const rule = platformRule(bare);
  if (rule) return fromPlatform(rule, bare, pathname, url);
  const boundary = boundaryLength(suffixes, host);
  if (boundary >= host.length) return { kind: 'hosting-domain', host };
  const hostKey = bare !== host && bare.length > boundary ? bare : host;
  const keys: string[] = [];
  const levels: KeyLevel[] = [];
  const path = normalizePath(pathname);
  appendPathKeys(hostKey, path, keys, levels);
  const cid = path.startsWith('/ipfs/') ? cidOf(firstSegment(path, 6)) : cidLabel(hostKey);
  if (cid) {
    keys.splice(keys.length - 1, 0, `ipfs:${cid}`);
    levels.splice(levels.length - 1, 0, LEVEL.page);
  }
  const parents = appendParents(hostKey, boundary, keys);
  for (let i = 0; i < parents; i++) levels.push(LEVEL.parent);
  return keysTarget(keys, levels, host);
};

/** The keys of a URL's clean host (see `cleanHost`) that is not an IP address. */
const fromNamedHost = (suffixes: PublicSuffixes, host: string, pathname: string, url: () => URL): CheckTarget => {
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) {
    return PRIVATE;
  }
  return fromHost(suffixes, host, pathname, url);
};

/** The keys of a parsed URL; `url` gives the parsed URL itself to the platform rules that read its query. */
const fromLocation = (suffixes: PublicSuffixes, hostname: string, pathname: string, url: () => URL): CheckTarget => {
  if (hostname === '') return PARSE_ERROR;
  if (hostname.charCodeAt(0) === CHAR.openBracket) return fromIpv6(hostname, pathname);
  const host = cleanHost(hostname);
  if (host === undefined) return PARSE_ERROR;
  const ip = IPV4.exec(host);
  if (ip) return isPrivateIpv4(Number(ip[1]), Number(ip[2])) ? PRIVATE : fromIp(host, pathname);
  return fromNamedHost(suffixes, host, pathname, url);
};

const fromUrl = (suffixes: PublicSuffixes, text: string): CheckTarget => {
  const plain = plainUrl(text);
  // A plain URL's host is clean and ends in a letter, so it is no IP address.
  if (plain) return fromNamedHost(suffixes, plain.hostname, plain.pathname, () => new URL(text));
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return PARSE_ERROR;
  }
  // Each read of `hostname` or `pathname` makes a new string.
  return fromLocation(suffixes, url.hostname, url.pathname, () => url);
};

const fromEmail = (suffixes: PublicSuffixes, text: string): CheckTarget => {
  const query = text.indexOf('?');
  const address = query < 0 ? text : text.slice(0, query);
  const at = address.lastIndexOf('@');
  const domain = at > 0 ? canonicalHost(address.slice(at + 1)) : undefined;
  if (domain === undefined || !domain.includes('.')) return PARSE_ERROR;
  const keys = [`mailto:${address.slice(0, at).toLowerCase()}@${domain}`];
  const levels: KeyLevel[] = [LEVEL.exact];
  const boundary = boundaryLength(suffixes, domain);
  if (!WEBMAIL.has(domain) && boundary < domain.length && !IPV4.test(domain)) {
    keys.push(domain);
    levels.push(LEVEL.parent);
    const parents = appendParents(domain, boundary, keys);
    for (let i = 0; i < parents; i++) levels.push(LEVEL.parent);
  }
  return keysTarget(keys, levels);
};

const fromPhone = (text: string): CheckTarget => {
  const digits = text.replace(/[\s().-]/g, '');
  return /^\+?\d{6,15}$/.test(digits) ? single(`tel:${digits}`) : PARSE_ERROR;
};

const fromIpfs = (scheme: string, rest: string): CheckTarget => {
  const name = rest.replace(/^\/\//, '').split(/[/?#]/, 1)[0] ?? '';
  if (scheme === 'ipns') return name === '' ? PARSE_ERROR : single(`ipns:${name.toLowerCase()}`);
  const cid = cidOf(name);
  return cid ? single(`ipfs:${cid}`) : PARSE_ERROR;
};

const fromEthereumUri = (rest: string): CheckTarget => {
  const address = /^(?:pay-)?(0x[0-9a-fA-F]{40})(?:[@/?]|$)/.exec(rest)?.[1];
  return address ? single(address.toLowerCase()) : UNSUPPORTED;
};

const fromTyped = (suffixes: PublicSuffixes, text: string, type: AssetType): CheckTarget | undefined => {
  if (type === 'ADDRESS' && BASE58_ADDRESS.test(text)) return single(text);
  if (type === 'EMAIL' && !SCHEME.test(text) && text.includes('@')) return fromEmail(suffixes, text);
  if (type === 'PHONE_NUMBER' && !SCHEME.test(text)) return fromPhone(text);
  const urlPrefix = HANDLE_URLS[type];
  if (urlPrefix && HANDLE.test(text) && (DOTTED_HANDLES.has(type) || !text.includes('.'))) {
    return fromUrl(suffixes, urlPrefix + (text.startsWith('@') ? text.slice(1) : text));
  }
  return undefined;
};

/**
 * The one canonicalization of the service: checked content and every stored entry (allowlisted
 * assets, threats, external list entries) go through it, so equal things get equal keys.
 * `type` only helps read bare handles, phone numbers and non-EVM addresses of stored assets.
 */
export const canonicalize = (suffixes: PublicSuffixes, content: string, type?: AssetType): CheckTarget => {
  let text = content;
  if (LINE_BREAKS.test(text)) text = text.replace(LINE_BREAKS_ALL, '');
  text = text.trim();
  if (text === '') return PARSE_ERROR;
  if (EVM_ADDRESS.test(text)) return single(text.toLowerCase());
  if (type !== undefined) {
    const typed = fromTyped(suffixes, text, type);
    if (typed) return typed;
  }
  // The common case, without the scheme's regular expression, its lower-casing and its lookup.
  if (text.startsWith('https://') || text.startsWith('http://')) return fromUrl(suffixes, text);
  const scheme = SCHEME.exec(text);
  if (scheme) {
    const name = (scheme[1] as string).toLowerCase();
    if (WEB_SCHEMES.has(name)) return fromUrl(suffixes, text);
    if (INTERNAL_SCHEMES.has(name)) return INTERNAL_SCHEME;
    const rest = text.slice(scheme[0].length);
    if (name === 'ipfs' || name === 'ipns') return fromIpfs(name, rest);
    if (name === 'mailto') return fromEmail(suffixes, rest);
    if (name === 'tel') return fromPhone(rest);
    if (name === 'ethereum') return fromEthereumUri(rest);
    return PORT_AFTER_COLON.test(rest) ? fromUrl(suffixes, `https://${text}`) : UNSUPPORTED;
  }
  if (text.startsWith('//')) return fromUrl(suffixes, `https:${text}`);
  const cid = cidOf(text);
  if (cid) return single(`ipfs:${cid}`);
  if (EMAIL.test(text)) return fromEmail(suffixes, text);
  if (PHONE.test(text)) return fromPhone(text);
  if (BASE58_ADDRESS.test(text)) return single(text);
  if (text.includes('.') || text.startsWith('[')) return fromUrl(suffixes, `https://${text}`);
  return UNSUPPORTED;
};

/**
 * The key under which an entry (an allowlisted asset or a blocked threat) is stored in the
 * check index: the first key the check looks up for the same content. `undefined` when the
 * content has no key of its own (unparseable, internal, private, or a hosting platform itself).
 */
export const entryKeyOf = (suffixes: PublicSuffixes, content: string, type?: AssetType): string | undefined => {
  const target = canonicalize(suffixes, content, type);
  return target.kind === 'keys' ? target.keys[0] : undefined;
};
