import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { publicHandler } from './api-handler.ts';
import { headerOf } from './request.ts';

/** `rewrite`, when given, changes the file's text once as it is read (e.g. an address in a library). */
export type StaticFile = { path: string; type: string; rewrite?: (text: string) => string };
type Loaded = { type: string; plain: string; gzip: string };

/**
 * A file read on first use, relative to the working directory: the project root locally, the
 * bundle (`/var/task`, where the route's `files` are copied) in Lambda. Served gzip-compressed
 * to clients that accept it.
 */
export const staticFile = ({ path, type, rewrite }: StaticFile): (() => Loaded) => {
  let loaded: Loaded | undefined;
  return () => {
    if (!loaded) {
      const read = readFileSync(resolve(process.cwd(), path));
      const content = rewrite ? Buffer.from(rewrite(read.toString('utf8')), 'utf8') : read;
      loaded = { type, plain: content.toString('utf8'), gzip: gzipSync(content).toString('base64') };
    }
    return loaded;
  };
};

export const fileResponse = (
  file: Loaded,
  requestHeaders: Record<string, string | undefined> | undefined,
  headers: Record<string, string>,
): APIGatewayProxyResultV2 => {
  const gzip = /\bgzip\b/.test(headerOf(requestHeaders, 'accept-encoding') ?? '');
  return {
    statusCode: 200,
    headers: {
      'content-type': file.type,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      vary: 'accept-encoding',
      ...headers,
    },
    body: gzip ? file.gzip : file.plain,
    isBase64Encoded: gzip,
  };
};

/**
 * A page's address with a trailing slash (`/v2/docs/`) answered with a redirect to the address
 * without it: the page loads its files by relative address (`static/…`, so it works under both
 * bases), which from `/v2/docs/` would resolve under `/v2/docs/static/` and not be found.
 * Undefined when the path has no trailing slash.
 */
const withoutTrailingSlash = (event: {
  rawPath?: string;
  rawQueryString?: string;
}): APIGatewayProxyResultV2 | undefined => {
  const path = event.rawPath ?? '';
  if (path.length <= 1 || !path.endsWith('/')) return undefined;
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  return {
    statusCode: 301,
    headers: { location: `${path.replace(/\/+$/, '')}${query}`, 'cache-control': 'public, max-age=300' },
    body: '',
  };
};

/** A page: its file with its content security policy, cached for five minutes; its address with a trailing slash redirected. */
export const pageHandler = (file: StaticFile, contentSecurityPolicy: string) => {
  const page = staticFile(file);
  return publicHandler(
    async (event) =>
      withoutTrailingSlash(event) ??
      fileResponse(page(), event.headers, {
        'content-security-policy': contentSecurityPolicy,
        'cache-control': 'public, max-age=300',
      }),
  );
};
