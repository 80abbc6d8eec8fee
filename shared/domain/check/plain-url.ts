/**
 * Most checked content is `http(s)://` with a plain lower-case host and a plain path. For that
 * shape the WHATWG parser changes nothing, so the host and path are read off the text directly,
 * and the parser runs only for everything else (down to one upper-case letter in the host).
 * `test/unit/check/plain-url.property.test.ts` holds this reader to the parser's `hostname` and
 * `pathname`.
 */

const CODE = {
  a: 0x61,
  z: 0x7a,
  zero: 0x30,
  nine: 0x39,
  dot: 0x2e,
  hyphen: 0x2d,
  underscore: 0x5f,
  slash: 0x2f,
  question: 0x3f,
  hash: 0x23,
} as const;

const isHostCode = (code: number): boolean =>
  (code >= CODE.a && code <= CODE.z) ||
  (code >= CODE.zero && code <= CODE.nine) ||
  code === CODE.dot ||
  code === CODE.hyphen ||
  code === CODE.underscore;

/**
 * Path characters the parser never escapes or rewrites: letters, digits and
 * `-._~!$&'()*+,;=:@/`. Not `%` (decoded in hosts, kept in paths, but it starts a dot segment
 * as `%2e`), not `\` (a slash to the parser), nothing it percent-encodes.
 */
const PATH_CODES = (() => {
  const codes = new Uint8Array(128);
  for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/") {
    codes[c.charCodeAt(0)] = 1;
  }
  return codes;
})();

const MAX_LABEL = 63;
const MAX_HOST = 253;

/**
 * A host the check keys as it stands: no empty label, labels of at most 63 characters, 253 in
 * all; the last label starts with a letter (so the parser does not read the host as an IPv4
 * address); no `xn--` label (the standard has the parser check punycode; parsers differ in
 * whether they do).
 */
const isPlainHost = (host: string): boolean => {
  if (host === '' || host.length > MAX_HOST || host.startsWith('xn--') || host.includes('.xn--')) return false;
  let labelStart = 0;
  for (let i = 0; i <= host.length; i++) {
    if (i < host.length && host.charCodeAt(i) !== CODE.dot) continue;
    const length = i - labelStart;
    if (length === 0 || length > MAX_LABEL) return false;
    labelStart = i + 1;
  }
  const last = host.charCodeAt(host.lastIndexOf('.') + 1);
  return last >= CODE.a && last <= CODE.z;
};

export type PlainUrl = { hostname: string; pathname: string };

/**
 * `hostname` and `pathname` as `new URL(text)` gives them, when `text` has the plain shape; else
 * undefined. The hostname is then already what `cleanHost` in `canonical.ts` makes of it.
 */
export const plainUrl = (text: string): PlainUrl | undefined => {
  const start = text.startsWith('https://') ? 8 : text.startsWith('http://') ? 7 : -1;
  if (start < 0) return undefined;
  let end = start;
  while (end < text.length && isHostCode(text.charCodeAt(end))) end++;
  const stop = end < text.length ? text.charCodeAt(end) : -1;
  if (stop !== -1 && stop !== CODE.slash && stop !== CODE.question && stop !== CODE.hash) return undefined;
  const hostname = text.slice(start, end);
  if (!isPlainHost(hostname)) return undefined;
  let pathEnd = end;
  if (stop === CODE.slash) {
    for (; pathEnd < text.length; pathEnd++) {
      const code = text.charCodeAt(pathEnd);
      if (code === CODE.question || code === CODE.hash) break;
      if (code >= 128 || PATH_CODES[code] === 0) return undefined;
      // A segment that starts with a dot may be a dot segment, which the parser resolves.
      if (code === CODE.dot && text.charCodeAt(pathEnd - 1) === CODE.slash) return undefined;
    }
  }
  return {
    hostname,
    pathname: pathEnd === end ? '/' : text.slice(end, pathEnd),
  };
};
