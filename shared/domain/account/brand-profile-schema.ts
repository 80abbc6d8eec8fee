import * as v from 'valibot';
import { webUrl } from '../core/web-url.ts';

/* How fixtures and the operator's `brand set` give a brand's profile; only their code loads it. */

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
  avatarUrl: v.optional(v.nullable(webUrl('avatarUrl'))),
  websiteUrl: v.optional(v.nullable(webUrl('websiteUrl'))),
  twitterHandle: v.optional(optionalText('twitterHandle', 64)),
  useOrganizationDocs: v.optional(v.boolean('useOrganizationDocs must be a boolean')),
  legalDocuments: v.optional(
    v.pipe(
      v.array(
        v.object(
          { id: v.optional(documentId), name: text('name', 256), url: webUrl('url') },
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
            url: v.optional(v.nullable(webUrl('url'))),
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
