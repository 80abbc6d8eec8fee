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

/** The source name at a 1-based position of the bundle, where the map records one (a renamed identifier). */
const nameAt = (map: SourceMap, line: number | null, column: number | null): string | undefined => {
  if (!line || !column) return undefined;
  const entry = map.findEntry(line - 1, column - 1);
  return 'name' in entry && typeof entry.name === 'string' ? entry.name : undefined;
};

/**
 * The source name of the frame's function, as Node's own source map support finds it: the name
 * recorded where the function begins or, failing that, where its caller (in the same file) calls it.
 */
const sourceName = (map: SourceMap, site: NodeJS.CallSite, caller: NodeJS.CallSite | undefined) =>
  nameAt(map, site.getEnclosingLineNumber(), site.getEnclosingColumnNumber()) ??
  (caller && caller.getFileName() === site.getFileName()
    ? nameAt(map, caller.getLineNumber(), caller.getColumnNumber())
    : undefined);

/** `o (...)` or `Object.o [as fail] (...)` with the function's bundle name `o` replaced by `name`. */
const renamed = (frame: string, bundleName: string | null, name: string | undefined): string => {
  const open = frame.indexOf(' (');
  if (!bundleName || !name || name === bundleName || open < 0) return frame;
  const alias = frame.lastIndexOf(' [as ', open);
  const end = alias < 0 ? open : alias;
  const start = end - bundleName.length;
  if (start < 0 || frame.slice(start, end) !== bundleName || (start > 0 && !' .'.includes(frame.charAt(start - 1)))) {
    return frame;
  }
  return `${frame.slice(0, start)}${name}${frame.slice(end)}`;
};

/**
 * `fn (/var/task/index.js:1:2345)` as `fail (/functions/assets/create.ts:19:54)`: the place in the
 * source and, as the bundles do not keep function names, the function's source name. As it is when
 * no map knows the place.
 */
const sourceFrame = (site: NodeJS.CallSite, caller: NodeJS.CallSite | undefined): string => {
  const frame = String(site);
  const file = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!file || line === null || column === null || file.startsWith('node:')) return frame;
  try {
    const map = mapOf(file);
    const origin = map?.findOrigin(line, column);
    if (!map || !origin || !('fileName' in origin)) return frame;
    const source = resolve(dirname(file), origin.fileName);
    const placed = frame.replace(`${file}:${line}:${column}`, `${source}:${origin.lineNumber}:${origin.columnNumber}`);
    return renamed(placed, site.getFunctionName(), sourceName(map, site, caller));
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
  `${header(error)}${sites.map((site, i) => `\n    at ${sourceFrame(site, sites[i + 1])}`).join('')}`;
