import { stableId } from '../core/ids.ts';
import type { BrandProfileInput } from './brand-profile-schema.ts';

/* The published configuration of a brand, as fixtures and the operator set it and the brands listing answers it. */

export type LegalDocument = { id: number; name: string; url: string };
export type TrademarkRegistration = {
  id: number;
  mark: string;
  registrationNumber: string;
  jurisdiction: string;
  url: string | null;
};
/** What a brand is configured with; a brand stored before these existed has none of them. */
export type BrandProfile = {
  brandColors?: string[];
  /** Terms that name the brand, and terms that rule a match out, for detections. */
  includedTerms?: string[];
  excludedTerms?: string[];
  tickers?: string[];
  avatarUrl?: string | null;
  websiteUrl?: string | null;
  twitterHandle?: string | null;
  useOrganizationDocs?: boolean;
  legalDocuments?: LegalDocument[];
  trademarkRegistrations?: TrademarkRegistration[];
};

/**
 * The profile as stored: documents and registrations given without an id get a stable one of
 * the brand and their content, so reloading a fixture keeps every id.
 */
export const toBrandProfile = (brand: { orgId: string; slug: string }, input: BrandProfileInput): BrandProfile => {
  const { legalDocuments, trademarkRegistrations, ...rest } = input;
  const idOf = (what: string, given: number | undefined, content: string) =>
    given ?? stableId(`${what}:${brand.orgId}/${brand.slug}:${content}`);
  const documents = legalDocuments?.map((doc) => ({
    id: idOf('legal-document', doc.id, `${doc.name}\u0000${doc.url}`),
    name: doc.name,
    url: doc.url,
  }));
  const marks = trademarkRegistrations?.map((mark) => ({
    id: idOf('trademark', mark.id, `${mark.jurisdiction}\u0000${mark.registrationNumber}`),
    mark: mark.mark,
    registrationNumber: mark.registrationNumber,
    jurisdiction: mark.jurisdiction,
    url: mark.url ?? null,
  }));
  return {
    ...rest,
    ...(documents === undefined ? {} : { legalDocuments: documents }),
    ...(marks === undefined ? {} : { trademarkRegistrations: marks }),
  };
};

/** The profile's fields, in the order the brands listing answers them. */
export const BRAND_PROFILE_KEYS: readonly (keyof BrandProfile)[] = [
  'brandColors',
  'includedTerms',
  'excludedTerms',
  'tickers',
  'avatarUrl',
  'websiteUrl',
  'twitterHandle',
  'useOrganizationDocs',
  'legalDocuments',
  'trademarkRegistrations',
];

/** Every published field of a brand's profile, empty where it was never set. */
export const brandProfileView = (profile: BrandProfile) => ({
  brandColors: profile.brandColors ?? [],
  includedTerms: profile.includedTerms ?? [],
  excludedTerms: profile.excludedTerms ?? [],
  tickers: profile.tickers ?? [],
  avatarUrl: profile.avatarUrl ?? null,
  websiteUrl: profile.websiteUrl ?? null,
  twitterHandle: profile.twitterHandle ?? null,
  useOrganizationDocs: profile.useOrganizationDocs ?? false,
  legalDocuments: profile.legalDocuments ?? [],
  trademarkRegistrations: profile.trademarkRegistrations ?? [],
});
