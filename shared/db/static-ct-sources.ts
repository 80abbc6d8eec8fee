import { readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { LogRef } from '../domain/detections/certstream.ts';
import { type LogList, logsOfList, parseLogList } from '../domain/detections/log-list.ts';
import type { TileClient } from '../domain/detections/static-ct.ts';
import { type Egress, egressRequest } from '../egress/index.ts';

const LOG_TIMEOUT_MS = 10_000;
/** A data tile of 256 entries is a few hundred kB; a names tile far less. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
const MAX_DECODED_BYTES = 32 * 1024 * 1024;

/** A body as sent, or gunzipped: logs may gzip tiles without being asked, so the gzip magic decides too. */
const decoded = (body: Buffer, encoding: string | undefined): Buffer =>
  encoding === 'gzip' || (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b)
    ? gunzipSync(body, { maxOutputLength: MAX_DECODED_BYTES })
    : body;

const joined = (log: string, path: string) => `${log.replace(/\/+$/, '')}/${path}`;

/** A static-CT log over HTTPS: its checkpoint and tiles at the monitoring prefix, each request under the egress policy. */
export const httpTileClient = (egress: Egress): TileClient => {
  const get = async (url: string): Promise<Buffer | undefined> => {
    const answer = await egressRequest(
      url,
      { headers: { 'Accept-Encoding': 'gzip, identity' } },
      { ...egress, timeoutMs: LOG_TIMEOUT_MS, maxBytes: MAX_RESPONSE_BYTES },
    );
    if (answer.status === 404) return undefined;
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`CT log answered ${answer.status} for ${new URL(url).pathname}`);
    }
    if (answer.truncated) throw new Error('CT log answer too large');
    const encoding = answer.headers['content-encoding'];
    return decoded(answer.body, typeof encoding === 'string' ? encoding.trim().toLowerCase() : undefined);
  };
  return {
    async checkpoint(log) {
      const body = await get(joined(log, 'checkpoint'));
      if (body === undefined) throw new Error('Static CT log has no checkpoint');
      return body.toString('utf8');
    },
    tile: (log, path) => get(joined(log, path)),
  };
};

/**
 * A recorded static-CT log, replayed locally: a folder laid out as the log's monitoring prefix
 * (`checkpoint`, `tile/data/…`, `tile/names/…`, gzip-encoded or not) that answers for every log
 * URL; a missing file is the log's 404.
 */
export const recordedTileClient = (dir: string): TileClient => {
  const read = async (path: string): Promise<Buffer | undefined> => {
    try {
      return decoded(await readFile(join(dir, path)), undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  return {
    async checkpoint() {
      const body = await read('checkpoint');
      if (body === undefined) throw new Error('Static CT log has no checkpoint');
      return body.toString('utf8');
    },
    tile: (_log, path) => read(path),
  };
};

/**
 * The log list the service reads CT logs from when a config names none, relative to the working
 * directory (the project root locally, the bundle in Lambda, where the function's `files` are copied).
 */
export const SHIPPED_CT_LOG_LIST = 'infra/local/detections/log-list.json';

/** The logs of a log-list file (read once, on first use) that take new certificates at `now`. */
export const logListLogs = (file: string, now: () => number): (() => Promise<readonly LogRef[]>) => {
  let list: LogList | undefined;
  return async () => {
    list ??= parseLogList(JSON.parse(readFileSync(resolve(file), 'utf8')));
    return logsOfList(list, now());
  };
};

/**
 * Replaces a log-list file with the list at `url` (fetched under the egress policy), once it
 * parses as a v3 log list; the file is swapped whole, never left half written.
 */
export const refreshLogList = async (
  url: string,
  file: string,
  egress: Egress,
): Promise<{ logs: number; tiled: number }> => {
  const answer = await egressRequest(
    url,
    { headers: { Accept: 'application/json', 'Accept-Encoding': 'gzip, identity' } },
    { ...egress, timeoutMs: LOG_TIMEOUT_MS, maxBytes: MAX_RESPONSE_BYTES },
  );
  if (answer.status !== 200) throw new Error(`The log list answered ${answer.status}`);
  if (answer.truncated) throw new Error('The log list is too large');
  const encoding = answer.headers['content-encoding'];
  const text = decoded(answer.body, typeof encoding === 'string' ? encoding : undefined).toString('utf8');
  const json: unknown = JSON.parse(text);
  const list = parseLogList(json);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(json, null, 2)}\n`);
  await rename(temporary, file);
  return {
    logs: list.operators.reduce((sum, op) => sum + (op.logs?.length ?? 0), 0),
    tiled: list.operators.reduce((sum, op) => sum + (op.tiled_logs?.length ?? 0), 0),
  };
};
