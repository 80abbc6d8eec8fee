import { X509Certificate } from 'node:crypto';

type Tlv = { tag: number; start: number; end: number };

/** One DER element at `at`: its tag and where its content starts and ends; undefined when it overruns `limit`. */
const element = (der: Buffer, at: number, limit: number): Tlv | undefined => {
  if (at + 2 > limit) return undefined;
  const tag = der[at] as number;
  let length = der[at + 1] as number;
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes < 1 || bytes > 4 || start + bytes > limit) return undefined;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + (der[start + i] as number);
    start += bytes;
  }
  const end = start + length;
  return end > limit ? undefined : { tag, start, end };
};

const children = (der: Buffer, parent: Tlv): Tlv[] | undefined => {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const child = element(der, at, parent.end);
    if (child === undefined) return undefined;
    out.push(child);
    at = child.end;
  }
  return out;
};

const SAN = Buffer.from([0x55, 0x1d, 0x11]);
const COMMON_NAME = Buffer.from([0x55, 0x04, 0x03]);
/** Names Node writes as they are; any other character makes Node quote or escape the name, so that path decides. */
const PLAIN = /^[A-Za-z0-9.*_-]+$/;
const same = (der: Buffer, at: Tlv, bytes: Buffer) =>
  at.tag === 0x06 && at.end - at.start === bytes.length && der.compare(bytes, 0, bytes.length, at.start, at.end) === 0;

/**
 * The names a plain certificate holds, read from its DER (the DNS names of its subject
 * alternative names, else its subject's first common name), or undefined where Node's parser must
 * decide. Measured: node:crypto's X509Certificate costs ~70 µs a certificate, too slow for a CT
 * log's volume; this walk reads only the fields the names come from.
 */
const plainNames = (der: Buffer): string[] | undefined => {
  const certificate = element(der, 0, der.length);
  if (certificate?.tag !== 0x30) return undefined;
  const tbs = element(der, certificate.start, certificate.end);
  if (tbs?.tag !== 0x30) return undefined;
  const fields = children(der, tbs);
  if (fields === undefined) return undefined;
  const rest = fields[0]?.tag === 0xa0 ? fields.slice(1) : fields;
  const subject = rest[4];
  if (subject?.tag !== 0x30) return undefined;
  const names: string[] = [];
  const extensions = rest.find((field) => field.tag === 0xa3);
  if (extensions !== undefined) {
    const list = element(der, extensions.start, extensions.end);
    const all = list?.tag === 0x30 ? children(der, list) : undefined;
    if (all === undefined) return undefined;
    for (const extension of all) {
      const parts = children(der, extension);
      if (parts === undefined || parts[0] === undefined) return undefined;
      if (!same(der, parts[0], SAN)) continue;
      const value = parts.at(-1);
      const general = value?.tag === 0x04 ? element(der, value.start, value.end) : undefined;
      const entries = general?.tag === 0x30 ? children(der, general) : undefined;
      if (entries === undefined) return undefined;
      for (const entry of entries) {
        if (entry.tag !== 0x82) continue;
        const name = der.toString('latin1', entry.start, entry.end);
        if (!PLAIN.test(name)) return undefined;
        names.push(name);
      }
    }
  }
  if (names.length > 0) return names;
  for (const set of children(der, subject) ?? []) {
    for (const pair of children(der, set) ?? []) {
      const [type, value] = children(der, pair) ?? [];
      if (type === undefined || value === undefined || !same(der, type, COMMON_NAME)) continue;
      if (value.tag !== 0x0c && value.tag !== 0x13 && value.tag !== 0x16) return undefined;
      const cn = der.toString('utf8', value.start, value.end);
      return PLAIN.test(cn) ? [cn] : undefined;
    }
  }
  return [];
};

/** The DNS names of a certificate (DER): its subject alternative names, else its subject's common name. */
export const namesOfCertificate = (der: Buffer): string[] => {
  const plain = plainNames(der);
  if (plain !== undefined) return plain;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(der);
  } catch {
    return [];
  }
  const names = (certificate.subjectAltName ?? '')
    .split(', ')
    .filter((part) => part.startsWith('DNS:'))
    .map((part) => part.slice(4));
  if (names.length > 0) return names;
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(certificate.subject)?.[1];
  return cn === undefined ? [] : [cn];
};
