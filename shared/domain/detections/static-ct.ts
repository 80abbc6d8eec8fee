import { namesOfCertificate } from './certificate-names.ts';

/** A static-CT (C2SP static-ct-api) log, read at its monitoring prefix. */
export type StaticLog = { monitoringUrl: string; kind: 'static' };

/**
 * How a static-CT log's files are fetched: the checkpoint's text, and a tile's bytes (already
 * decoded when the log sent them gzip-encoded), or undefined when the log answers 404.
 */
export interface TileClient {
  checkpoint(log: string): Promise<string>;
  tile(log: string, path: string): Promise<Buffer | undefined>;
}

/** Entries in a full tile. */
export const TILE_WIDTH = 256;

/** A tile index as path elements of three digits, all but the last prefixed `x` (1234067 → `x001/x234/067`). */
export const tileIndexPath = (index: number): string => {
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, '0'));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
};

/** A data tile's or a (Sunlight) names tile's path; a width under 256 names the partial tile. */
export const tilePath = (kind: 'data' | 'names', index: number, width = TILE_WIDTH): string =>
  `tile/${kind}/${tileIndexPath(index)}${width < TILE_WIDTH ? `.p/${width}` : ''}`;

export type Checkpoint = { origin: string; size: number; rootHash: Buffer };

/**
 * The body of a checkpoint (a signed note): origin, tree size and root hash. The note's
 * signatures are not verified: the names feed detections, not audits of the log.
 */
export const parseCheckpoint = (text: string): Checkpoint => {
  const [origin = '', sizeLine = '', hashLine = ''] = text.split('\n');
  const size = Number(sizeLine);
  const rootHash = Buffer.from(hashLine, 'base64');
  if (origin === '' || !/^\d{1,16}$/.test(sizeLine) || !Number.isSafeInteger(size) || rootHash.length !== 32) {
    throw new Error('Static CT log sent a malformed checkpoint');
  }
  return { origin, size, rootHash };
};

const uint = (bytes: Buffer, at: number, length: number): number => {
  let value = 0;
  for (let i = 0; i < length; i++) value = value * 256 + (bytes[at + i] as number);
  return value;
};

/**
 * The certificates (DER) of a data tile's entries, in order. Each TileLeaf is a TimestampedEntry
 * (timestamp, entry type, the X.509 certificate or the precertificate's issuer key hash and
 * TBSCertificate, extensions), then for a precertificate the pre-certificate itself, then the
 * issuers' fingerprints. A precertificate's names are read from its pre-certificate, as the RFC
 * 6962 path reads them from `extra_data`.
 */
export const certificatesOfDataTile = (tile: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  let at = 0;
  const need = (length: number) => {
    if (at + length > tile.length) throw new Error('Static CT log sent a truncated data tile');
  };
  const opaque = (lengthBytes: number): Buffer => {
    need(lengthBytes);
    const length = uint(tile, at, lengthBytes);
    at += lengthBytes;
    need(length);
    at += length;
    return tile.subarray(at - length, at);
  };
  while (at < tile.length) {
    need(10);
    const entryType = uint(tile, at + 8, 2);
    at += 10;
    if (entryType === 0) {
      const certificate = opaque(3);
      opaque(2); // extensions
      out.push(certificate);
    } else if (entryType === 1) {
      need(32);
      at += 32; // issuer key hash
      opaque(3); // TBSCertificate
      opaque(2); // extensions
      out.push(opaque(3));
    } else {
      throw new Error(`Static CT log sent an entry of unknown type ${entryType}`);
    }
    opaque(2); // issuers' fingerprints
  }
  return out;
};

type TrimmedEntry = { DNS?: string[] | null; Subject?: { CommonName?: string } | null };

/** A names tile's entries (JSON lines `{Timestamp, Subject, DNS}`): the DNS names, else the subject's common name. */
export const namesOfNamesTile = (tile: Buffer): string[][] =>
  tile
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const entry = JSON.parse(line) as TrimmedEntry;
      if (entry.DNS && entry.DNS.length > 0) return entry.DNS;
      const cn = entry.Subject?.CommonName;
      return cn ? [cn] : [];
    });

/** Tiles a run may still fetch, shared by the logs it reads. */
export type TileBudget = { left: number };

/**
 * Reads entries' names from static-CT logs: the checkpoint for the tree size, then tile after
 * tile from the position on. Names tiles are probed once per log (the first tile a reader
 * needs) and used while present; data tiles otherwise. A partial tile that is gone (the log has
 * filled it since) is read from the full tile.
 */
export const staticLogReader = (client: TileClient) => {
  const namesTiles = new Map<string, boolean>();
  /** A tile's bytes, the partial tile first; `gone` when neither is there, `spent` when the budget ran out. */
  const fetchTile = async (
    log: string,
    kind: 'data' | 'names',
    index: number,
    width: number,
    budget: TileBudget,
  ): Promise<Buffer | 'gone' | 'spent'> => {
    for (const tried of width < TILE_WIDTH ? [width, TILE_WIDTH] : [TILE_WIDTH]) {
      if (budget.left <= 0) return 'spent';
      budget.left--;
      const body = await client.tile(log, tilePath(kind, index, tried));
      if (body !== undefined) return body;
    }
    return 'gone';
  };
  const namesAt = async (
    log: string,
    index: number,
    width: number,
    offset: number,
    budget: TileBudget,
  ): Promise<string[][] | undefined> => {
    if (namesTiles.get(log) !== false) {
      const tile = await fetchTile(log, 'names', index, width, budget);
      if (tile === 'spent') return undefined;
      if (tile !== 'gone') {
        namesTiles.set(log, true);
        const entries = namesOfNamesTile(tile);
        if (entries.length < width)
          throw new Error(`Static CT log sent a short names tile ${tilePath('names', index)}`);
        return entries.slice(offset, width);
      }
      if (!namesTiles.has(log)) namesTiles.set(log, false);
    }
    const tile = await fetchTile(log, 'data', index, width, budget);
    if (tile === 'spent') return undefined;
    if (tile === 'gone') throw new Error(`Static CT log has no data tile ${tilePath('data', index, width)}`);
    const certificates = certificatesOfDataTile(tile);
    if (certificates.length < width) throw new Error(`Static CT log sent a short data tile ${tilePath('data', index)}`);
    return certificates.slice(offset, width).map(namesOfCertificate);
  };
  return {
    /**
     * Names of the entries from `from` (on a first read the tree's size, or 0 with `replay`) on,
     * at most `max` entries; the position is where the next read starts.
     */
    async read(
      log: string,
      { from, replay, max, tiles }: { from: number | undefined; replay: boolean; max: number; tiles: TileBudget },
    ): Promise<{ names: string[][]; position: number }> {
      const { size } = parseCheckpoint(await client.checkpoint(log));
      let position = from ?? (replay ? 0 : size);
      const names: string[][] = [];
      while (position < size && names.length < max) {
        const index = Math.floor(position / TILE_WIDTH);
        const width = Math.min(size - index * TILE_WIDTH, TILE_WIDTH);
        const entries = await namesAt(log, index, width, position - index * TILE_WIDTH, tiles);
        if (entries === undefined) break;
        const taken = entries.slice(0, max - names.length);
        names.push(...taken);
        position += taken.length;
      }
      return { names, position };
    },
  };
};
