import { ownDomains } from '../allowlist/assets.ts';
import type { PublicSuffixes } from '../check/index.ts';
import { brandIdOf } from '../lifecycle/reviews.ts';
import { brandProfile, evaluateThreat } from '../threat-engine/engine.ts';
import type { CandidateDeps, Confidence, Thresholds } from './model.ts';

export const confidenceOf = (score: number, { low, medium, high }: Thresholds): Confidence =>
  score >= high ? 'high' : score >= medium ? 'medium' : score >= low ? 'low' : 'none';

type Brand = Awaited<ReturnType<CandidateDeps['directory']['listBrands']>>[number];

/** What a run matches against: the organization's (or the config's brand's) terms and own domains. */
export const profileOf = async (deps: CandidateDeps, orgId: string, brandId: number | null) => {
  const [allBrands, domains] = await Promise.all([
    deps.directory.listBrands(orgId),
    ownDomains(deps.suffixes, deps.assets, orgId),
  ]);
  const brands = allBrands.filter((brand) => !brand.deleted && (brandId === null || brandIdOf(brand) === brandId));
  const tickers = brands.flatMap((brand) => brand.tickers ?? []);
  return { brands, domains, profile: brandProfile(orgId, brands, domains, tickers) };
};

export const matchedBrands = (
  suffixes: PublicSuffixes,
  content: string,
  brands: readonly Brand[],
  domains: readonly string[],
) =>
  brands
    .filter((brand) =>
      evaluateThreat(suffixes, content, brandProfile('', [brand], domains, brand.tickers ?? [])).signals.some((s) =>
        ['homoglyph', 'edit-distance', 'brand-term', 'tld-swap'].includes(s.name),
      ),
    )
    .map((brand) => ({ id: brandIdOf(brand), name: brand.name, slug: brand.slug }));
