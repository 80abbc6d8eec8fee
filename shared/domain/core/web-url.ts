import * as v from 'valibot';
import { jsonSchemaTwin } from '../../schema-twin.ts';

export const MAX_URL_LENGTH = 2048;

/**
 * White space, C0 controls, DEL and unpaired surrogates, anywhere. The URL parser trims the ends
 * and drops tabs and line breaks inside, so ` javascript:…` or `java\tscript:…` would reach it as
 * a scheme other than the one the text shows: such text is refused before it is parsed.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const NOT_URL_TEXT = /[\u0000-\u001f\u007f\s\p{Cs}]/u;
const HTTPS = /^https:\/\//i;
const HTTP_OR_HTTPS = /^https?:\/\//i;

/** Where http is allowed besides https: only where the contract says so (a local webhook receiver). */
export type UrlOptions = { http?: boolean };

/**
 * Whether `text` is an absolute `https:` URL (`http:` too with `http`), written out with `//`, with
 * a host and no credentials. Every other scheme (`javascript:`, `data:`, `file:`, `ftp:`, …), in
 * any letter case, is refused.
 */
export const isWebUrl = (text: string, { http = false }: UrlOptions = {}): boolean => {
  if (NOT_URL_TEXT.test(text) || !(http ? HTTP_OR_HTTPS : HTTPS).test(text)) return false;
  const url = URL.parse(text);
  return url !== null && url.hostname !== '' && url.username === '' && url.password === '';
};

/** The JSON Schema of `isWebUrl` for the API description: the scheme, then a host without credentials. */
const twinPattern = (http: boolean) =>
  `^[Hh][Tt][Tt][Pp]${http ? '[Ss]?' : '[Ss]'}://[^\\s\\u0000-\\u001f\\u007f\\p{Cs}@/?#\\\\]+(?:[/?#\\\\][^\\s\\u0000-\\u001f\\u007f\\p{Cs}]*)?$`;

/**
 * The one schema of a URL field of a request (`avatarUrl`, a webhook `url`, …): a string of at
 * most `max` characters that `isWebUrl` accepts; the message names the field unless one is given.
 */
export const webUrl = (
  field: string,
  { http = false, max = MAX_URL_LENGTH, message }: UrlOptions & { max?: number; message?: string } = {},
) =>
  v.pipe(
    v.string(message ?? `${field} must be a string`),
    v.maxLength(max, message ?? `${field} must be at most ${max} characters`),
    v.check(
      (text) => isWebUrl(text, { http }),
      message ?? `${field} must be an absolute ${http ? 'http(s)' : 'https'} URL`,
    ),
    jsonSchemaTwin({ pattern: twinPattern(http) }),
  );
