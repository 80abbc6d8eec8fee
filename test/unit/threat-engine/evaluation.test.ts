import { describe, expect, it } from 'vitest';
import { type BrandProfile, brandProfile, evaluateThreat } from '../../../shared/domain/threat-engine/engine.ts';
import { type Permutation, permutations } from '../../fixtures/dnstwist.ts';
import POPULAR from '../../fixtures/popular-domains.json' with { type: 'json' };

/** The demo organizations' brands (infra/local/demo.json) and the domains they allowlist. */
const PROFILES: Record<string, BrandProfile> = {
  acme: brandProfile(
    'acme',
    [
      { slug: 'acme-wallet', name: 'Acme Wallet' },
      { slug: 'acme-exchange', name: 'Acme Exchange' },
    ],
    ['acme.com'],
  ),
  globex: brandProfile('globex', [{ slug: 'globex-pay', name: 'Globex Pay' }], ['globex.com']),
};
const BRAND_DOMAINS: Record<string, string[]> = {
  acme: ['acme.com', 'acmewallet.com', 'acmeexchange.com'],
  globex: ['globex.com', 'globexpay.com'],
};
const OWN = [
  'acme.com',
  'www.acme.com',
  'app.acme.com',
  'docs.acme.com',
  'globex.com',
  'www.globex.com',
  'pay.globex.com',
];
const PER_DOMAIN = 70;

/** Up to `count` permutations, taken from each fuzzer in turn, so every algorithm is represented. */
const sample = (all: Permutation[], count: number): Permutation[] => {
  const byFuzzer = new Map<string, Permutation[]>();
  for (const permutation of all)
    byFuzzer.set(permutation.fuzzer, [...(byFuzzer.get(permutation.fuzzer) ?? []), permutation]);
  const queues = [...byFuzzer.values()];
  const taken: Permutation[] = [];
  for (let round = 0; taken.length < count && queues.some((queue) => queue.length > round); round++) {
    for (const queue of queues) {
      const next = queue[round];
      if (next !== undefined && taken.length < count) taken.push(next);
    }
  }
  return taken;
};

const benign = new Set([...POPULAR, ...OWN]);
const lookalikes = Object.entries(BRAND_DOMAINS).flatMap(([organization, domains]) =>
  domains.flatMap((domain) =>
    sample(
      permutations(domain).filter((permutation) => !benign.has(permutation.domain)),
      PER_DOMAIN,
    ).map((permutation) => ({ organization, ...permutation })),
  ),
);
const flagged = (content: string, organization: string) =>
  evaluateThreat(suffixes, content, PROFILES[organization] as BrandProfile).verdict !== 'BENIGN';

describe('the threat engine on a labelled corpus', () => {
  const caught = lookalikes.filter((lookalike) => flagged(lookalike.domain, lookalike.organization));
  const benignSamples = [...benign].flatMap((domain) =>
    Object.keys(PROFILES).map((organization) => ({ domain, organization })),
  );
  const falseAlarms = benignSamples.filter((sample) => flagged(sample.domain, sample.organization));
  const recall = caught.length / lookalikes.length;
  const precision = caught.length / (caught.length + falseAlarms.length);

  it('holds at least 300 lookalikes of the demo brands and 300 benign domains', () => {
    expect(lookalikes.length).toBeGreaterThanOrEqual(300);
    expect(benign.size).toBeGreaterThanOrEqual(300);
  });

  it('flags lookalikes (MALICIOUS or SUSPICIOUS) with precision and recall of at least 0.9', () => {
    const missed = lookalikes.filter((lookalike) => !caught.includes(lookalike));
    console.log(
      `engine evaluation: ${lookalikes.length} lookalikes, ${benignSamples.length} benign samples; recall ${recall.toFixed(3)}, precision ${precision.toFixed(3)}`,
      {
        missed: missed.map((m) => `${m.fuzzer}:${m.domain}`),
        falseAlarms: falseAlarms.map((f) => `${f.organization}:${f.domain}`),
      },
    );

    expect(recall).toBeGreaterThanOrEqual(0.9);
    expect(precision).toBeGreaterThanOrEqual(0.9);
  });

  it("answers BENIGN for every one of the organizations' own domains", () => {
    expect(OWN.filter((domain) => flagged(domain, domain.includes('acme') ? 'acme' : 'globex'))).toEqual([]);
  });
});

import { suffixes } from '../../fixtures/suffixes.ts';
