import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * The artifact format, version `ALGO_VERSION`. The bytes served are gzip of:
 *
 *   magic    4 bytes  ASCII `APBL`
 *   algo     1 byte   the expression algorithm (`algoVersion`)
 *   kind     1 byte   1 = snapshot (one list), 2 = recent (two lists: added, then removed),
 *                     3 = lists (one list: the external lists' blocking prefixes, then the look-alike rule)
 *   lists, each:
 *     count  4 bytes  big-endian, the number of prefixes
 *     k      1 byte   the Rice parameter
 *     length 4 bytes  big-endian, the bytes of the coded gaps that follow `first`
 *     first  4 bytes  big-endian, the smallest prefix (absent when count is 0)
 *     gaps   `length` bytes: for each next prefix, d = prefix - previous - 1 (the prefixes are
 *            sorted and unique, so d ≥ 0), Rice-coded: d >> k in unary (that many 1 bits, then a
 *            0 bit), then the low k bits of d, most significant first; bits fill each byte from
 *            its most significant bit, the last byte padded with 0 bits.
 *
 *   look-alike rule (kind 3 only):
 *     tolerance 1 byte  eth-phishing-detect's edit distance
 *     count  4 bytes  big-endian, the number of protected domains
 *     each   2 bytes big-endian length, then the domain (ASCII: canonical, punycode)
 *
 * Rice coding spends about log2(mean gap) + 1.5 bits a prefix (under 2 bytes at a million
 * prefixes); a varint spends whole bytes per gap.
 */
export const MAGIC = 'APBL';
export const KIND = { snapshot: 1, recent: 2, lists: 3 } as const;
export type ArtifactKind = keyof typeof KIND;

export type Artifact =
  | { kind: 'snapshot'; algoVersion: number; prefixes: Uint32Array }
  | { kind: 'recent'; algoVersion: number; added: Uint32Array; removed: Uint32Array }
  | { kind: 'lists'; algoVersion: number; prefixes: Uint32Array; lookalikes: Lookalikes };

/** eth-phishing-detect's look-alike rule: a domain within `tolerance` edits of a protected one's form is blocked. */
export type Lookalikes = { tolerance: number; domains: readonly string[] };

const encodeLookalikes = ({ tolerance, domains }: Lookalikes): Buffer => {
  const head = Buffer.alloc(5);
  head.writeUInt8(tolerance, 0);
  head.writeUInt32BE(domains.length, 1);
  return Buffer.concat([
    head,
    ...domains.map((domain) => {
      const bytes = Buffer.from(domain, 'latin1');
      const length = Buffer.alloc(2);
      length.writeUInt16BE(bytes.length, 0);
      return Buffer.concat([length, bytes]);
    }),
  ]);
};

const decodeLookalikes = (bytes: Buffer, at: number): Lookalikes => {
  check(bytes.length >= at + 5, 'truncated look-alike rule');
  const tolerance = bytes.readUInt8(at);
  const count = bytes.readUInt32BE(at + 1);
  const domains: string[] = [];
  let next = at + 5;
  for (let i = 0; i < count; i++) {
    check(bytes.length >= next + 2, 'truncated look-alike domain');
    const length = bytes.readUInt16BE(next);
    check(bytes.length >= next + 2 + length, 'truncated look-alike domain');
    domains.push(bytes.toString('latin1', next + 2, next + 2 + length));
    next += 2 + length;
  }
  return { tolerance, domains };
};

/** The Rice parameter that codes these gaps in the fewest bits (near log2 of the mean gap). */
const riceParameter = (sorted: Uint32Array): number => {
  if (sorted.length < 2) return 0;
  const span = (sorted[sorted.length - 1] as number) - (sorted[0] as number);
  const estimate = Math.max(0, Math.floor(Math.log2(Math.max(1, span / (sorted.length - 1)))));
  let best = estimate;
  let bestBits = Number.POSITIVE_INFINITY;
  for (let k = Math.max(0, estimate - 2); k <= Math.min(31, estimate + 1); k++) {
    let bits = 0;
    for (let i = 1; i < sorted.length; i++) {
      bits += Math.floor(((sorted[i] as number) - (sorted[i - 1] as number) - 1) / 2 ** k) + 1 + k;
    }
    if (bits < bestBits) {
      best = k;
      bestBits = bits;
    }
  }
  return best;
};

class BitWriter {
  bytes: Uint8Array;
  length = 0;
  #bit = 0;
  constructor(capacity: number) {
    this.bytes = new Uint8Array(Math.max(16, capacity));
  }
  #grow() {
    const grown = new Uint8Array(this.bytes.length * 2);
    grown.set(this.bytes);
    this.bytes = grown;
  }
  write(bit: number) {
    if (this.#bit === 0) {
      if (this.length === this.bytes.length) this.#grow();
      this.length++;
    }
    if (bit) this.bytes[this.length - 1] = (this.bytes[this.length - 1] as number) | (0x80 >> this.#bit);
    this.#bit = (this.#bit + 1) & 7;
  }
}

const encodeList = (sorted: Uint32Array): Buffer => {
  const k = riceParameter(sorted);
  const writer = new BitWriter(sorted.length * 2);
  const step = 2 ** k;
  for (let i = 1; i < sorted.length; i++) {
    const gap = (sorted[i] as number) - (sorted[i - 1] as number) - 1;
    for (let q = Math.floor(gap / step); q > 0; q--) writer.write(1);
    writer.write(0);
    for (let bit = k - 1; bit >= 0; bit--) writer.write(Math.floor(gap / 2 ** bit) & 1);
  }
  const head = Buffer.alloc(sorted.length > 0 ? 13 : 9);
  head.writeUInt32BE(sorted.length, 0);
  head.writeUInt8(k, 4);
  head.writeUInt32BE(writer.length, 5);
  if (sorted.length > 0) head.writeUInt32BE(sorted[0] as number, 9);
  return Buffer.concat([head, writer.bytes.subarray(0, writer.length)]);
};

const check = (condition: boolean, what: string): void => {
  if (!condition) throw new Error(`Not a blocklist artifact: ${what}`);
};

const decodeList = (bytes: Buffer, at: number): { prefixes: Uint32Array; end: number } => {
  check(bytes.length >= at + 9, 'truncated list header');
  const count = bytes.readUInt32BE(at);
  const k = bytes.readUInt8(at + 4);
  const length = bytes.readUInt32BE(at + 5);
  check(k <= 31, 'Rice parameter out of range');
  const prefixes = new Uint32Array(count);
  if (count === 0) return { prefixes, end: at + 9 };
  check(bytes.length >= at + 13 + length, 'truncated list');
  let value = bytes.readUInt32BE(at + 9);
  prefixes[0] = value;
  const start = at + 13;
  let bit = 0;
  const end = length * 8;
  const read = (): number => {
    check(bit < end, 'truncated gaps');
    const byte = bytes[start + (bit >> 3)] as number;
    const result = (byte >> (7 - (bit & 7))) & 1;
    bit++;
    return result;
  };
  const step = 2 ** k;
  for (let i = 1; i < count; i++) {
    let quotient = 0;
    while (read() === 1) quotient++;
    let remainder = 0;
    for (let b = 0; b < k; b++) remainder = remainder * 2 + read();
    value += quotient * step + remainder + 1;
    check(value <= 0xffffffff, 'prefix out of range');
    prefixes[i] = value;
  }
  return { prefixes, end: start + length };
};

/** The served bytes of an artifact; the lists must be sorted ascending without repeats. */
export const encodeArtifact = (artifact: Artifact): Buffer => {
  const head = Buffer.alloc(6);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt8(artifact.algoVersion, 4);
  head.writeUInt8(KIND[artifact.kind], 5);
  const parts =
    artifact.kind === 'recent'
      ? [encodeList(artifact.added), encodeList(artifact.removed)]
      : [encodeList(artifact.prefixes), ...(artifact.kind === 'lists' ? [encodeLookalikes(artifact.lookalikes)] : [])];
  return gzipSync(Buffer.concat([head, ...parts]), { level: 9 });
};

export const decodeArtifact = (served: Uint8Array): Artifact => {
  const bytes = gunzipSync(served);
  check(bytes.length >= 6 && bytes.toString('latin1', 0, 4) === MAGIC, 'bad magic');
  const algoVersion = bytes.readUInt8(4);
  const kind = bytes.readUInt8(5);
  const first = decodeList(bytes, 6);
  if (kind === KIND.snapshot) return { kind: 'snapshot', algoVersion, prefixes: first.prefixes };
  if (kind === KIND.lists) {
    return { kind: 'lists', algoVersion, prefixes: first.prefixes, lookalikes: decodeLookalikes(bytes, first.end) };
  }
  check(kind === KIND.recent, `unknown kind ${kind}`);
  const second = decodeList(bytes, first.end);
  return { kind: 'recent', algoVersion, added: first.prefixes, removed: second.prefixes };
};

/**
 * An artifact's token: the MD5 of its served bytes in hex, so it changes exactly when the content
 * does, and equals the ETag S3 (and the CDN in front of it) gives a single-part object.
 */
export const tokenOf = (bytes: Uint8Array): string => createHash('md5').update(bytes).digest('hex');

export const sortedUnique = (values: Iterable<number>): Uint32Array => {
  const sorted = Uint32Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i] as number;
  return sorted.slice(0, n);
};

/** Whether a sorted list holds `value` (binary search). */
export const holds = (sorted: Uint32Array, value: number): boolean => {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = sorted[mid] as number;
    if (at === value) return true;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
};
