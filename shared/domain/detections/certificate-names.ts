import { X509Certificate } from 'node:crypto';

/** The DNS names of a certificate (DER): its subject alternative names, else its subject's common name. */
export const namesOfCertificate = (der: Buffer): string[] => {
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
