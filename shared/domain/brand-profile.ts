import * as v from 'valibot';
import { stableId } from './ids.ts';

/* The published configuration of a brand, as fixtures and the operator set it and the brands listing answers it. */

const MAX_TERMS = 200;
const MAX_DOCUMENTS = 50;

/** NUL, other C0 controls but tab and line breaks, and unpaired surrogates (the `u` flag pairs surrogates first). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it names the characters it rejects.
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\p{Cs}]/u;

const text = (field: string, max: number) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check((value) => !UNPRINTABLE.test(value), `${field} must not hold control characters or unpaired surrogates`),
    v.nonEmpty(`${field} must not be empty`),
    v.maxLength(max, `${field} must be at most ${max} characters`),
  );
const texts = (field: string, max: number) =>
  v.pipe(
    v.array(text(`${field}[]`, max), `${field} must be an array of strings`),
    v.maxLength(MAX_TERMS, `${field} holds at most ${MAX_TERMS} entries`),
  );
const optionalText = (field: string, max: number) => v.nullable(text(field, max));
const documentId = v.pipe(
  v.number('id must be a positive integer'),
  v.safeInteger('id must be a positive integer'),
  v.minValue(1, 'id must be a positive integer'),
);

/** Each field may be left out; `brand set` changes only those it is given. */
export const brandProfileFields = {
  brandColors: v.optional(texts('brandColors', 32)),
  includedTerms: v.optional(texts('includedTerms', 256)),
  excludedTerms: v.optional(texts('excludedTerms', 256)),
  tickers: v.optional(texts('tickers', 32)),
  avatarUrl: v.optional(optionalText('avatarUrl', 2048)),
  websiteUrl: v.optional(optionalText('websiteUrl', 2048)),
  twitterHandle: v.optional(optionalText('twitterHandle', 64)),
  useOrganizationDocs: v.optional(v.boolean('useOrganizationDocs must be a boolean')),
  legalDocuments: v.optional(
    v.pipe(
      v.array(
        v.object(
          { id: v.optional(documentId), name: text('name', 256), url: text('url', 2048) },
          'each legal document is an object with name and url',
        ),
        'legalDocuments must be an array',
      ),
      v.maxLength(MAX_DOCUMENTS, `legalDocuments holds at most ${MAX_DOCUMENTS} documents`),
    ),
  ),
  trademarkRegistrations: v.optional(
    v.pipe(
      v.array(
        v.object(
          {
            id: v.optional(documentId),
            mark: text('mark', 256),
            registrationNumber: text('registrationNumber', 128),
            jurisdiction: text('jurisdiction', 128),
            url: v.optional(optionalText('url', 2048)),
          },
          'each trademark registration is an object with mark, registrationNumber and jurisdiction',
        ),
        'trademarkRegistrations must be an array',
      ),
      v.maxLength(MAX_DOCUMENTS, `trademarkRegistrations holds at most ${MAX_DOCUMENTS} registrations`),
    ),
  ),
};
export const brandProfileSchema = v.strictObject(
  brandProfileFields,
  `a brand profile holds only ${Object.keys(brandProfileFields).join(', ')}`,
);
export type BrandProfileInput = v.InferOutput<typeof brandProfileSchema>;

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
  return {
    ...rest,
    ...(legalDocuments === undefined
      ? {}
      : {
          legalDocuments: legalDocuments.map((doc) => ({
            id: idOf('legal-document', doc.id, `${doc.name}\u0000${doc.url}`),
            name: doc.name,
            url: doc.url,
          })),
        }),
    ...(trademarkRegistrations === undefined
      ? {}
      : {
          trademarkRegistrations: trademarkRegistrations.map((mark) => ({
            id: idOf('trademark', mark.id, `${mark.jurisdiction}\u0000${mark.registrationNumber}`),
            mark: mark.mark,
            registrationNumber: mark.registrationNumber,
            jurisdiction: mark.jurisdiction,
            url: mark.url ?? null,
          })),
        }),
  };
};

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

export const BRAND_PROFILE_KEYS = Object.keys(brandProfileFields) as (keyof BrandProfile)[];
