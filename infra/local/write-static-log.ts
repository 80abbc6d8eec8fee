import { createHash, generateKeyPairSync, sign, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { LogEntry } from '../../shared/domain/detections/certstream.ts';
import { TILE_WIDTH, tilePath } from '../../shared/domain/detections/static-ct.ts';

const uint = (value: number, bytes: number): Buffer => {
  const out = Buffer.alloc(bytes);
  let rest = value;
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  return out;
};
const readUint = (bytes: Buffer, at: number, length: number): number => {
  let value = 0;
  for (let i = 0; i < length; i++) value = value * 256 + (bytes[at + i] as number);
  return value;
};
const opaque = (bytes: number, data: Buffer) => Buffer.concat([uint(data.length, bytes), data]);
const sha256 = (...parts: Buffer[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};
/** The ASN.1Cert items of an opaque24 list, each opaque24. */
const certificateList = (list: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  for (let at = 0; at + 3 <= list.length; ) {
    const length = readUint(list, at, 3);
    out.push(list.subarray(at + 3, at + 3 + length));
    at += 3 + length;
  }
  return out;
};

/** RFC 6962's Merkle Tree Hash over leaf hashes. */
const treeHash = (leaves: readonly Buffer[]): Buffer => {
  if (leaves.length === 0) return sha256(Buffer.alloc(0));
  if (leaves.length === 1) return leaves[0] as Buffer;
  let split = 1;
  while (split * 2 < leaves.length) split *= 2;
  return sha256(Buffer.from([1]), treeHash(leaves.slice(0, split)), treeHash(leaves.slice(split)));
};

type Converted = { leaf: Buffer; tileLeaf: Buffer; certificate: Buffer; issuers: Buffer[] };

/**
 * An RFC 6962 entry as a static-CT log holds it: its TimestampedEntry (with the `leaf_index`
 * extension a static log adds, where the entry has none), then a precertificate's
 * pre-certificate, then the SHA-256 fingerprints of the submitted chain.
 */
const converted = (entry: LogEntry, index: number): Converted => {
  const input = Buffer.from(entry.leaf_input, 'base64');
  const extra = Buffer.from(entry.extra_data, 'base64');
  let timestamped = input.subarray(2);
  if (readUint(timestamped, timestamped.length - 2, 2) === 0) {
    const leafIndex = Buffer.concat([Buffer.from([0]), opaque(2, uint(index, 5))]);
    timestamped = Buffer.concat([timestamped.subarray(0, timestamped.length - 2), opaque(2, leafIndex)]);
  }
  const precert = readUint(timestamped, 8, 2) === 1;
  let certificate: Buffer;
  let issuers: Buffer[];
  let middle = Buffer.alloc(0);
  if (precert) {
    const length = readUint(extra, 0, 3);
    certificate = extra.subarray(3, 3 + length);
    issuers = certificateList(extra.subarray(6 + length));
    middle = opaque(3, certificate);
  } else {
    certificate = timestamped.subarray(13, 13 + readUint(timestamped, 10, 3));
    issuers = certificateList(extra.subarray(3));
  }
  const fingerprints = opaque(2, Buffer.concat(issuers.map((issuer) => sha256(issuer))));
  return {
    leaf: Buffer.concat([Buffer.from([0, 0]), timestamped]),
    tileLeaf: Buffer.concat([timestamped, middle, fingerprints]),
    certificate,
    issuers,
  };
};

/** A names tile line as Sunlight writes it: the subject's common name and the DNS subject alternative names. */
const trimmed = (entry: LogEntry, certificate: Buffer) => {
  const parsed = new X509Certificate(certificate);
  const dns = (parsed.subjectAltName ?? '')
    .split(', ')
    .filter((part) => part.startsWith('DNS:'))
    .map((part) => part.slice(4));
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(parsed.subject)?.[1];
  const timestamp = readUint(Buffer.from(entry.leaf_input, 'base64'), 2, 8);
  return JSON.stringify({ Timestamp: timestamp, Subject: cn === undefined ? {} : { CommonName: cn }, DNS: dns });
};

/**
 * A checkpoint signed as static-ct-api signs it: an RFC6962NoteSignature (timestamp, then the
 * ECDSA P-256 TreeHeadSignature) under a key ID derived from the origin and the log's LogID.
 */
const signedCheckpoint = (origin: string, size: number, root: Buffer, timestamp: number): string => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const logId = sha256(publicKey.export({ type: 'spki', format: 'der' }));
  const signed = Buffer.concat([Buffer.from([0, 1]), uint(timestamp, 8), uint(size, 8), root]);
  const signature = sign('sha256', signed, privateKey);
  const digitallySigned = Buffer.concat([Buffer.from([4, 3]), opaque(2, signature)]);
  const keyId = sha256(Buffer.from(`${origin}\n`), Buffer.from([5]), logId).subarray(0, 4);
  const note = Buffer.concat([keyId, uint(timestamp, 8), digitallySigned]).toString('base64');
  return `${origin}\n${size}\n${root.toString('base64')}\n\n— ${origin} ${note}\n`;
};

export type StaticLogOptions = {
  /** The checkpoint's origin: the submission prefix without its scheme. */
  origin?: string;
  /** Write Sunlight's names tiles beside the data tiles. */
  namesTiles?: boolean;
};

/**
 * Writes `entries` (RFC 6962 `get-entries` entries, in log order) as a static-CT log's
 * monitoring prefix under `dir`: the checkpoint, the data tiles (full ones, then the partial
 * rightmost one), the names tiles (gzip JSON lines) and the issuers. A folder written before is
 * replaced, as a log that grew drops the partial tiles it has filled since.
 */
export const writeStaticLog = (dir: string, entries: readonly LogEntry[], options: StaticLogOptions = {}) => {
  const { origin = 'ct.example.net/demo', namesTiles = true } = options;
  rmSync(join(dir, 'tile'), { recursive: true, force: true });
  rmSync(join(dir, 'issuer'), { recursive: true, force: true });
  const write = (path: string, body: Buffer | string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), body);
  };
  const all = entries.map(converted);
  for (let index = 0; index * TILE_WIDTH < all.length; index++) {
    const tile = all.slice(index * TILE_WIDTH, (index + 1) * TILE_WIDTH);
    write(tilePath('data', index, tile.length), Buffer.concat(tile.map((entry) => entry.tileLeaf)));
    if (namesTiles) {
      const lines = tile.map((entry, i) => trimmed(entries[index * TILE_WIDTH + i] as LogEntry, entry.certificate));
      write(tilePath('names', index, tile.length), gzipSync(`${lines.join('\n')}\n`));
    }
  }
  for (const issuer of new Set(all.flatMap((entry) => entry.issuers.map((der) => der.toString('base64'))))) {
    const der = Buffer.from(issuer, 'base64');
    write(`issuer/${sha256(der).toString('hex')}`, der);
  }
  const root = treeHash(all.map((entry) => sha256(Buffer.from([0]), entry.leaf)));
  const last = entries.at(-1);
  const timestamp = last === undefined ? 0 : readUint(Buffer.from(last.leaf_input, 'base64'), 2, 8) + 1;
  write('checkpoint', signedCheckpoint(origin, all.length, root, timestamp));
};

const SAMPLE = resolve(import.meta.dirname, 'detections/ct-sample.json');
const STATIC_LOG = resolve(import.meta.dirname, 'detections/static-log');

/** `npm run static-log`: rewrites the recorded static log from the recorded RFC 6962 log (the same certificates). */
if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { entries } = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { entries: LogEntry[] };
  writeStaticLog(STATIC_LOG, entries);
  console.log(`Wrote ${entries.length} entries to ${STATIC_LOG}`);
}
