import * as v from 'valibot';
import { ASSET_TYPES } from '../../shared/domain/allowlist/asset-types.ts';
import type { OperationDoc, ResponseDoc } from './operation-doc.ts';

const error = (description: string): ResponseDoc => ({ description, error: true });

const type = v.picklist(ASSET_TYPES);
const offset = v.pipe(v.number(), v.integer(), v.minValue(0));

const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const scanStatus = v.picklist(['PENDING', 'COMPLETED', 'FAILED']);

const BODY = {
  submitted: v.object({
    submittedAssets: v.array(v.object({ asset: v.string(), assetId: id, scanId: v.optional(id) })),
  }),
  scanStarted: v.object({ scanId: id, status: scanStatus, content: v.string() }),
  scan: v.object({
    scanId: id,
    status: scanStatus,
    content: v.string(),
    type: v.nullable(type),
    result: v.nullable(
      v.object({
        verdict: v.picklist(['MALICIOUS', 'SUSPICIOUS', 'BENIGN', 'UNKNOWN']),
        score: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
        signals: v.array(v.object({ name: v.string(), weight: v.number(), detail: v.string() })),
      }),
    ),
    createdAt: timestamp,
    completedAt: v.nullable(timestamp),
  }),
  dispute: v.object({ id: v.string(), content: v.string(), message: v.optional(v.string()) }),
  unblocked: v.union([
    v.object({ status: v.literal('UNBLOCKED'), content: v.string() }),
    v.object({ status: v.literal('DISPUTED'), content: v.string(), disputeId: v.string() }),
  ]),
  parsed: v.nullable(
    v.union([
      v.object({ content: v.string(), submittedContent: v.string(), type }),
      v.object({ assets: v.array(v.object({ content: v.string(), type, start: offset, end: offset })) }),
    ]),
  ),
};

/** The routes of intake: parsing, disputes, unblocking, submissions and scans. */
export const INTAKE_OPERATIONS: Record<string, OperationDoc> = {
  'parse-assets': {
    summary: 'Parse an asset, or find the assets in a text',
    description:
      'The body decides. **`{content}`** (the published contract): the one asset `content` is, normalized by the published glossary rules, as `{content, submittedContent, type}`, or `null` (the whole body) when no asset type fits. A `URL` loses its scheme, user and password, port, query, fragment and trailing slash, and its host becomes lower-case punycode (`https://User@Example.COM:8080/Path/?q=1#x` → `example.com/Path`); a `PAGE` (a URL on a link or hosting platform such as `bit.ly`, `linktr.ee` or `github.io`) is kept as sent, only trimmed; an `ADDRESS` (`0x` and 40 hex digits) is lower-cased; a `@handle` or profile URL becomes its canonical profile URL (`@Acme` → `x.com/acme`), an e-mail address its lower-case form. `submittedContent` is `content` exactly as sent. **`{text}`** (an extension of this service): every URL, domain, e-mail address, blockchain address, @handle (a Twitter account) and invite link in a text of at most 20,000 characters, such as a chat message, in the order they appear and each once (by canonical content), as `{assets: [...]}`. Defanged writing (`hxxp`, `[.]`, `(.)`, `[:]`) is read as what it stands for; markdown link syntax and trailing punctuation (`).,;:!?\'"»`) are not part of an asset. Each `content` is canonical as the asset check reads it (no scheme, lower-case punycode host, no query or fragment), so checking it gives the verdict of what the text links to. `start` and `end` (exclusive) are UTF-16 offsets of the asset as written in `text`. A body with both fields, or neither, is 400.',
    tag: 'Threat lifecycle',
    requestExample: { content: 'https://User@Acme-Wallet-Airdrop.XYZ:8443/claim/?ref=1#top' },
    responses: {
      200: {
        description: 'The normalized asset (or null) for `content`; the assets found, possibly none, for `text`',
        body: BODY.parsed,
        example: {
          content: 'acme-wallet-airdrop.xyz/claim',
          submittedContent: 'https://User@Acme-Wallet-Airdrop.XYZ:8443/claim/?ref=1#top',
          type: 'URL',
        },
      },
    },
  },
  'create-dispute': {
    summary: 'Dispute a verdict (false positive)',
    description:
      'Files a dispute of content the service knows (a verdict of its own or of an external list, or a report about it; else 404 `Asset not found`). `email` is required unless the key belongs to a user whose e-mail address the service holds. One dispute per e-mail address and canonical content: a repeat is 400 `A dispute already exists for this asset with this email`. Every dispute records that it came through the API; content blocked only by eth-phishing-detect gets a note (and `message`) saying so. The operator upholds or rejects disputes; an upheld one makes the content `ALLOWED` for the whole service, in every check and in the change log. Any key with the `write` scope, `report` budget.',
    tag: 'Threat lifecycle',
    requestExample: {
      content: 'https://acme-wallet-airdrop.xyz',
      email: 'owner@acme-wallet-airdrop.xyz',
      description: 'This is our site',
    },
    responses: {
      200: {
        description: 'The dispute',
        body: BODY.dispute,
        example: { id: '1790000000000123', content: 'https://acme-wallet-airdrop.xyz' },
      },
      404: error('The service knows nothing about this content'),
    },
  },
  'unblock-asset': {
    summary: 'Unblock content',
    description:
      "Content the caller's organization blocks (its own threats) leaves the blocking statuses: the content becomes `UNKNOWN` (or `ALLOWED` where an organization allowlists it) in every check, the change log and the lists (`UNBLOCKED`). Content blocked by someone else (another organization's threat, an external list), or still blocked once the organization's own threats are withdrawn, gets a dispute filed on the organization's behalf (`DISPUTED`, with its `disputeId`; asking again names the same dispute). Content that is not blocked: 400 `Asset is not blocked`.",
    tag: 'Threat lifecycle',
    requestExample: { content: 'acme-wallet-airdrop.xyz' },
    responses: {
      200: {
        description: 'Unblocked, or disputed',
        body: BODY.unblocked,
        example: { status: 'UNBLOCKED', content: 'acme-wallet-airdrop.xyz' },
      },
    },
  },
  'submit-assets': {
    summary: 'Submit assets',
    description:
      "Up to 100 assets (each 1 to 1,000 characters: URLs, domains, addresses, handles, e-mail addresses). Each gets `assetId`, the service's stable number for its canonical content (the same content always gets the same id), in input order. With `organizationSlug` (an organization key's own, or one the user key's user is an active member of), each is also scanned for that organization: `scanId` names the scan, which runs in the background (fetch it with `POST /scan/result`); a `MALICIOUS` result files a report for the organization, once per content. Any key, `report` budget.",
    tag: 'Threat lifecycle',
    requestExample: {
      assets: ['acme-wallet-airdrop.xyz', '0x1234567890abcdef1234567890abcdef12345678'],
      organizationSlug: 'acme',
    },
    responses: {
      200: {
        description: 'The assets in input order',
        body: BODY.submitted,
        example: {
          submittedAssets: [{ asset: 'acme-wallet-airdrop.xyz', assetId: 48213771, scanId: 1790000000000123 }],
        },
      },
    },
  },
  'start-scan': {
    summary: 'Start a scan',
    description:
      "Scans one content in the background; the answer comes at once with the scan `PENDING`. The scan belongs to the organization of the key (or `organizationSlug`), else to the user. Its result (`POST /scan/result`) is computed offline from what the service holds: its own verdicts and the external lists, lookalikes of the organization's brand terms and allowlisted domains (UTS #39 confusable skeletons, edit distance, added keywords, swapped endings), mixed-script and punycode hosts, suspicious keywords and hosting platforms. With an organization, a `MALICIOUS` result files a report for it, once per content. Any key, `report` budget.",
    tag: 'Threat lifecycle',
    requestExample: { content: 'https://acme-wallet-airdrop.xyz/claim', organizationSlug: 'acme' },
    responses: {
      200: {
        description: 'The scan, started',
        body: BODY.scanStarted,
        example: { scanId: 1790000000000123, status: 'PENDING', content: 'https://acme-wallet-airdrop.xyz/claim' },
      },
    },
  },
  'get-scan-result': {
    summary: 'Get a scan result',
    description:
      "A scan of the caller's (its organization's, or for a user key its own or of an organization it is an active member of); any other scan is 404 `Scan not found`. `result` is null until the scan completed: `verdict` (`MALICIOUS` at a score of 70 or more, `SUSPICIOUS` at 40 or more, else `BENIGN`; `UNKNOWN` for content that is no asset), `score` 0 to 100, and every signal with its weight.",
    tag: 'Threat lifecycle',
    requestExample: { scanId: 1790000000000123 },
    responses: {
      200: {
        description: 'The scan',
        body: BODY.scan,
        example: {
          scanId: 1790000000000123,
          status: 'COMPLETED',
          content: 'https://acme-wallet-airdrop.xyz/claim',
          type: 'URL',
          result: {
            verdict: 'MALICIOUS',
            score: 90,
            signals: [
              { name: 'brand-term', weight: 45, detail: 'contains the brand term acme' },
              { name: 'added-keyword', weight: 25, detail: 'brand lookalike with airdrop' },
            ],
          },
          createdAt: '2026-11-26T10:00:00.000Z',
          completedAt: '2026-11-26T10:00:00.150Z',
        },
      },
      404: error('Not a scan of the caller'),
    },
  },
};
