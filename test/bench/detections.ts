/**
 * Detections: the CT prefilter's throughput (names matched against the demo brands' terms per
 * second, and certificates parsed from RFC 6962 entries per second), and DNS_TWIST's permutations
 * per domain with the time to generate them.
 */
import { matchNames, namesOf } from '../../shared/domain/detections/certstream.ts';
import { permutations } from '../../shared/domain/detections/dnstwist.ts';
import { brandProfile } from '../../shared/domain/threat-engine/engine.ts';
import { logEntry } from '../fixtures/certificates.ts';
import { suffixes } from '../fixtures/suffixes.ts';

const NAMES = 200_000;
const ENTRIES = 20_000;
const WORDS = [
  'blue',
  'river',
  'stone',
  'cloud',
  'pixel',
  'maple',
  'orbit',
  'delta',
  'nova',
  'cedar',
  'lumen',
  'harbor',
];
const TLDS = ['com', 'net', 'org', 'io', 'dev', 'shop', 'xyz'];

const profile = brandProfile(
  'acme',
  [
    { slug: 'acme-wallet', name: 'Acme Wallet' },
    { slug: 'acme-exchange', name: 'Acme Exchange' },
  ],
  ['acme.com'],
);
const nameAt = (i: number) =>
  `${i % 7 === 0 ? 'www.' : ''}${WORDS[i % WORDS.length]}${WORDS[(i * 7) % WORDS.length]}${i}.${TLDS[i % TLDS.length]}`;

export const benchDetections = async (): Promise<{ name: string; value: string }[]> => {
  const names = Array.from({ length: NAMES }, (_, i) => (i % 1000 === 0 ? `acme-login-${i}.xyz` : nameAt(i)));
  matchNames(names.slice(0, 10_000), profile.terms);
  let start = process.hrtime.bigint();
  const matched = matchNames(names, profile.terms);
  const matchSeconds = Number(process.hrtime.bigint() - start) / 1e9;

  const entries = Array.from({ length: ENTRIES }, (_, i) => logEntry([nameAt(i)], i + 1, i % 2 === 0));
  start = process.hrtime.bigint();
  let parsed = 0;
  for (const entry of entries) parsed += namesOf(entry).length;
  const parseSeconds = Number(process.hrtime.bigint() - start) / 1e9;

  const rows = [
    {
      name: 'detections: CT names matched per second',
      value: `${Math.round(NAMES / matchSeconds).toLocaleString('en')} (${NAMES.toLocaleString('en')} names, ${matched.length} passed the prefilter, goal ≥ 20,000)`,
    },
    {
      name: 'detections: CT entries parsed per second',
      value: `${Math.round(ENTRIES / parseSeconds).toLocaleString('en')} (${parsed} names from ${ENTRIES} X.509 and precert entries)`,
    },
  ];
  for (const domain of ['acme.com', 'acmewallet.com', 'globex.com', 'example.co.uk']) {
    start = process.hrtime.bigint();
    const list = permutations(suffixes, domain);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    rows.push({
      name: `detections: DNS_TWIST permutations of ${domain}`,
      value: `${list.length} in ${ms.toFixed(1)} ms`,
    });
  }
  return rows;
};
