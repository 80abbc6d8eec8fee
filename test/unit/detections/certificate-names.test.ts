import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { namesOfCertificate } from '../../../shared/domain/detections/certificate-names.ts';
import { certificate } from '../../fixtures/certificates.ts';

/** Node's own reading of a certificate's names, as the service read them before the DER walk. */
const nodeNames = (der: Buffer): string[] => {
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(der);
  } catch {
    return [];
  }
  const names = (parsed.subjectAltName ?? '')
    .split(', ')
    .filter((part) => part.startsWith('DNS:'))
    .map((part) => part.slice(4));
  if (names.length > 0) return names;
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(parsed.subject)?.[1];
  return cn === undefined ? [] : [cn];
};

/** A seeded generator, so a failure names the case that failed and runs again the same. */
const seeded = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*,:"\\ ';

describe('certificate names', () => {
  it('reads the same names as node:crypto for 2,000 certificates, odd characters and many names among them', () => {
    const random = seeded(7);
    const pick = (text: string) => text[Math.floor(random() * text.length)] as string;
    const cases = Array.from({ length: 2000 }, (_, i) => {
      const count = i % 50 === 0 ? 0 : 1 + Math.floor(random() * (i % 10 === 0 ? 40 : 3));
      const names = Array.from({ length: count }, () => {
        const odd = random() < 0.1;
        const length = 1 + Math.floor(random() * 30);
        const label = Array.from({ length }, () => pick(odd ? ALPHABET : ALPHABET.slice(0, 62))).join('');
        return `${random() < 0.2 ? '*.' : ''}${label}.example`;
      });
      return certificate(names, i + 1);
    });

    const mismatches = cases.filter(
      (der) => JSON.stringify(namesOfCertificate(der)) !== JSON.stringify(nodeNames(der)),
    );

    expect(mismatches.map(nodeNames)).toEqual([]);
  });

  it('reads no names from a truncated certificate', () => {
    const der = certificate(['cut.example'], 1);

    expect(namesOfCertificate(der.subarray(0, der.length - 40))).toEqual([]);
  });
});
