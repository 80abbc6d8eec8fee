import * as v from 'valibot';
import { ASSET_TYPES } from '../../shared/domain/asset-types.ts';
import type { OperationDoc, ResponseDoc } from './operations.ts';

const error = (description: string): ResponseDoc => ({ description, error: true });

const type = v.picklist(ASSET_TYPES);
const offset = v.pipe(v.number(), v.integer(), v.minValue(0));

const BODY = {
  dispute: v.object({ id: v.string(), content: v.string(), message: v.optional(v.string()) }),
  unblocked: v.union([
    v.object({ status: v.literal('UNBLOCKED'), content: v.string() }),
    v.object({ status: v.literal('DISPUTED'), content: v.string(), disputeId: v.string() }),
  ]),
  parsed: v.object({ assets: v.array(v.object({ content: v.string(), type, start: offset, end: offset })) }),
};

/** The routes of intake: parsing, disputes, unblocking, submissions and scans. */
export const INTAKE_OPERATIONS: Record<string, OperationDoc> = {
  'parse-assets': {
    summary: 'Find the assets in a text',
    description:
      'Every URL, domain, e-mail address, blockchain address, @handle (a Twitter account) and invite link in a text of at most 20,000 characters, such as a chat message, in the order they appear and each once (by canonical content). Defanged writing (`hxxp`, `[.]`, `(.)`, `[:]`) is read as what it stands for; markdown link syntax and trailing punctuation (`).,;:!?\'"»`) are not part of an asset. `content` is canonical as the asset check reads it (no scheme, lower-case punycode host, no query or fragment), so checking it gives the verdict of what the text links to. `start` and `end` (exclusive) are UTF-16 offsets of the asset as written in `text`.',
    tag: 'Threat lifecycle',
    requestExample: { text: 'Claim at hxxps://acme-wallet-airdrop[.]xyz/claim). DM @acme_support' },
    responses: {
      200: {
        description: 'The assets found, possibly none',
        body: BODY.parsed,
        example: {
          assets: [
            { content: 'acme-wallet-airdrop.xyz/claim', type: 'URL', start: 9, end: 48 },
            { content: 'x.com/acme_support', type: 'TWITTER', start: 54, end: 67 },
          ],
        },
      },
    },
  },
  'create-dispute': {
    summary: 'Dispute a verdict (false positive)',
    description:
      'Files a dispute of content the service knows (a verdict of its own or of an external list, or a report about it; else 404 `Asset not found`). `email` is required unless the key belongs to a user whose e-mail address the service holds. One dispute per e-mail address and canonical content: a repeat is 400 `A dispute already exists for this asset with this email`. Every dispute records that it came through the API; content blocked only by eth-phishing-detect gets a note (and `message`) saying so. The operator upholds or rejects disputes; an upheld one makes the content `ALLOWED` for the whole service, in every check and in the change log. Any key, `report` budget.',
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
};
