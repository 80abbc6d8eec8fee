/**
 * The threat engine, as a scan runs it: every lookalike and benign domain of the labelled corpus
 * (test/unit/threat-engine), each evaluated on its own against the demo brands, timed one by one.
 */
import { type BrandProfile, brandProfile, evaluateThreat } from '../../shared/domain/threat-engine/engine.ts';
import { permutations } from '../fixtures/dnstwist.ts';
import POPULAR from '../fixtures/popular-domains.json' with { type: 'json' };
import { suffixes } from '../fixtures/suffixes.ts';
import { percentile } from './child.ts';

const PROFILE: BrandProfile = brandProfile(
  'acme',
  [
    { slug: 'acme-wallet', name: 'Acme Wallet' },
    { slug: 'acme-exchange', name: 'Acme Exchange' },
  ],
  ['acme.com'],
);
const ROUNDS = 5;

export const benchEngine = async (): Promise<{ name: string; value: string }[]> => {
  const contents = [
    ...['acme.com', 'acmewallet.com', 'acmeexchange.com'].flatMap((domain) =>
      permutations(domain).map((p) => p.domain),
    ),
    ...POPULAR,
  ];
  for (const content of contents) evaluateThreat(suffixes, content, PROFILE);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const content of contents) {
      const start = process.hrtime.bigint();
      evaluateThreat(suffixes, `https://${content}/claim`, PROFILE);
      times.push(Number(process.hrtime.bigint() - start) / 1000);
    }
  }
  times.sort((a, b) => a - b);
  return [
    { name: 'engine: scans timed', value: `${times.length} (${contents.length} domains × ${ROUNDS})` },
    { name: 'engine: per scan p50', value: `${percentile(times, 0.5).toFixed(1)} µs` },
    { name: 'engine: per scan p99', value: `${percentile(times, 0.99).toFixed(1)} µs` },
  ];
};
