import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';

/**
 * Injected at the top of every bundle (`infra/bundling.ts`): stack traces name the source files
 * and lines, not the bundle's. Node's `--enable-source-maps` does the same, but it reads and
 * indexes the map of every module, and walks the whole bundle, as the module loads: 13–24 ms of a
 * cold load measured here, paid by every container for traces that most containers never print.
 * Here a bundle's map is read when a stack trace is first formatted, once per container.
 */
const maps = new Map<string, SourceMap | undefined>();

/** The map beside `file`; none when there is no map or it cannot be read (frames then stay as they are). */
const readMap = (file: string): SourceMap | undefined => {
  try {
    return new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    return undefined;
  }
};

/** `readMap`, once per file. */
const mapOf = (file: string): SourceMap | undefined => {
  if (!maps.has(file)) maps.set(file, readMap(file));
  return maps.get(file);
};

/** `fn (/var/task/index.js:1:2345)` as `fn (/functions/assets/create.ts:19:54)`, or as it is when no map knows the place. */
const sourceFrame = (site: NodeJS.CallSite): string => {
  const frame = String(site);
  const file = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!file || line === null || column === null || file.startsWith('node:')) return frame;
  try {
    const origin = mapOf(file)?.findOrigin(line, column);
    if (!origin || !('fileName' in origin)) return frame;
    const source = resolve(dirname(file), origin.fileName);
    return frame.replace(`${file}:${line}:${column}`, `${source}:${origin.lineNumber}:${origin.columnNumber}`);
  } catch {
    return frame;
  }
};

const header = (error: unknown): string => {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return 'Error';
  }
};

Error.prepareStackTrace = (error, sites) =>
  `${header(error)}${sites.map((site) => `\n    at ${sourceFrame(site)}`).join('')}`;
