import { domainToUnicode } from 'node:url';
import { skeletonOf } from '../threat-engine/skeleton.ts';
import { namesOfCertificate } from './certificate-names.ts';
import { type StaticLog, staticLogReader, type TileClient } from './static-ct.ts';

const gramsOf = (text: string, n = 3): string[] => {
  const grams: string[] = [];
  for (let i = 0; i + n <= text.length; i++) grams.push(text.slice(i, i + n));
  return grams;
};
const SEPARATORS = /[-_.]/g;

/** A word and every string one deletion from it: two words one edit apart share one of these (symmetric deletion). */
const deletions = (word: string): string[] => {
  const out = [word];
  for (let i = 0; i < word.length; i++) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
};
/** Terms longer than this are left to the substring and trigram tests. */
const MAX_EDITED_TERM = 12;

/**
 * Names of certificates worth scoring against `terms`: a cheap prefilter fast enough for a CT
 * log's volume. A name passes when it holds a term, or shares at least half of a term's
 * trigrams (typos, swaps, added letters), or has a label one edit from a term (by shared
 * one-deletion variants), or, when it is not plain ASCII, when its UTS #39 skeleton holds or
 * nears a term. Wildcards lose their `*.`; each name passes once.
 */
export const matchNames = (names: readonly string[], terms: readonly string[]): string[] => {
  const targets = terms.map((term) => term.replace(SEPARATORS, '')).filter((term) => term.length >= 3);
  const gramOwners = new Map<string, number[]>();
  targets.forEach((target, i) => {
    for (const gram of new Set(gramsOf(target))) gramOwners.set(gram, [...(gramOwners.get(gram) ?? []), i]);
  });
  const needed = targets.map((target) => Math.max(1, Math.ceil((target.length - 2) / 2)));
  const counts = new Uint16Array(targets.length);
  const near = new Set(
    targets.filter((target) => target.length >= 4 && target.length <= MAX_EDITED_TERM).flatMap(deletions),
  );
  const lengths = new Set(
    targets.filter((target) => target.length <= MAX_EDITED_TERM).flatMap((t) => [t.length - 1, t.length, t.length + 1]),
  );
  const oneEditAway = (name: string): boolean => {
    for (const token of name.split(SEPARATORS)) {
      if (!lengths.has(token.length)) continue;
      for (const variant of deletions(token)) if (near.has(variant)) return true;
    }
    return false;
  };
  const passes = (text: string): boolean => {
    for (const target of targets) if (text.includes(target)) return true;
    counts.fill(0);
    for (let i = 0; i + 3 <= text.length; i++) {
      const owners = gramOwners.get(text.slice(i, i + 3));
      if (owners === undefined) continue;
      for (const owner of owners) if (++(counts[owner] as number) >= (needed[owner] as number)) return true;
    }
    return false;
  };
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of names) {
    const name = (raw.startsWith('*.') ? raw.slice(2) : raw).toLowerCase();
    if (seen.has(name)) continue;
    seen.add(name);
    const text = name.replace(SEPARATORS, '');
    let hit = passes(text) || oneEditAway(name);
    if (!hit && (name.includes('xn--') || !/^[\x20-\x7e]*$/.test(name))) {
      hit = passes(skeletonOf(domainToUnicode(name) || name).replace(SEPARATORS, ''));
    }
    if (hit) out.push(name);
  }
  return out;
};

/** One `get-entries` entry of an RFC 6962 log, base64 as the log sends it. */
export type LogEntry = { leaf_input: string; extra_data: string };

const uint = (bytes: Buffer, at: number, length: number): number => {
  let value = 0;
  for (let i = 0; i < length; i++) value = value * 256 + (bytes[at + i] as number);
  return value;
};

/**
 * The DER certificate an entry names: a MerkleTreeLeaf (version, leaf type, timestamp, entry
 * type) holds an X.509 entry's certificate itself; a precertificate entry's TBSCertificate is
 * not a whole certificate, so the pre-certificate at the head of `extra_data`
 * (PrecertChainEntry) is read instead.
 */
export const certificateOf = (entry: LogEntry): Buffer | undefined => {
  const leaf = Buffer.from(entry.leaf_input, 'base64');
  // version (1) + MerkleLeafType (1) + timestamp (8) + LogEntryType (2)
  if (leaf.length < 12 || leaf[0] !== 0 || leaf[1] !== 0) return undefined;
  const entryType = uint(leaf, 10, 2);
  if (entryType === 0) {
    const length = uint(leaf, 12, 3);
    return leaf.subarray(15, 15 + length);
  }
  if (entryType === 1) {
    const extra = Buffer.from(entry.extra_data, 'base64');
    const length = uint(extra, 0, 3);
    return extra.subarray(3, 3 + length);
  }
  return undefined;
};

/** The DNS names of an entry's certificate. */
export const namesOf = (entry: LogEntry): string[] => {
  const der = certificateOf(entry);
  return der === undefined ? [] : namesOfCertificate(der);
};

/** The two calls of an RFC 6962 log a reader needs. */
export interface LogClient {
  treeSize(log: string): Promise<number>;
  entries(log: string, start: number, end: number): Promise<LogEntry[]>;
}

/** A log a config names: an RFC 6962 log's base URL, or a static-CT log read at its monitoring prefix. */
export type LogRef = string | StaticLog;

/** Logs' largest `get-entries` batch; logs may return fewer, and the reader asks again from there. */
const BATCH = 256;

export type CertificateNamesOptions = {
  /** Read a log with no stored position from its start (a recording), not from its current size. */
  replay?: boolean;
  /** How static-CT logs are reached; without it a config's static logs are refused. */
  tiles?: TileClient;
  /** The logs a config that names none reads: the log list's. */
  defaultLogs?: () => Promise<readonly LogRef[]>;
  /** Tiles fetched per run at most, over all static logs (each request counts, a 404 too). */
  maxTiles?: number;
};

/** Enough tiles for the largest entry budget of a run (1,000,000 / 256), with room for fallbacks. */
const MAX_TILES_PER_RUN = 4096;

/**
 * Reads new certificate names from each log: from the stored position (on a first run the
 * tree's current size, so history is not replayed; a recording replays from its start) up to
 * `max` entries in all. A static log's position is kept under its monitoring prefix.
 */
export const certificateNames = (client: LogClient, options: CertificateNamesOptions = {}) => {
  const { replay = false, tiles, defaultLogs = async () => [], maxTiles = MAX_TILES_PER_RUN } = options;
  const staticReader = tiles === undefined ? undefined : staticLogReader(tiles);
  return {
    async read(
      configured: readonly LogRef[] | undefined,
      from: (log: string) => Promise<number | undefined>,
      max: number,
    ) {
      const names: string[] = [];
      const positions: Record<string, number> = {};
      const logs = configured ?? (await defaultLogs());
      let budget = max;
      const tileBudget = { left: maxTiles };
      for (const log of logs) {
        if (typeof log !== 'string') {
          if (staticReader === undefined) throw new Error('Static-CT logs are not reachable here');
          const read = await staticReader.read(log.monitoringUrl, {
            from: await from(log.monitoringUrl),
            replay,
            max: budget,
            tiles: tileBudget,
          });
          for (const entryNames of read.names) names.push(...entryNames);
          budget -= read.names.length;
          positions[log.monitoringUrl] = read.position;
          continue;
        }
        const size = await client.treeSize(log);
        let position = (await from(log)) ?? (replay ? 0 : size);
        while (position < size && budget > 0) {
          const end = Math.min(size, position + Math.min(BATCH, budget)) - 1;
          const batch = await client.entries(log, position, end);
          if (batch.length === 0) break;
          for (const entry of batch) names.push(...namesOf(entry));
          position += batch.length;
          budget -= batch.length;
        }
        positions[log] = position;
      }
      return { names, positions };
    },
  };
};
