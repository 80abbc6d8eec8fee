import * as v from 'valibot';
import { ASSET_TYPES } from '../../shared/domain/asset-types.ts';
import type { OperationDoc } from './operations.ts';

const type = v.picklist(ASSET_TYPES);
const offset = v.pipe(v.number(), v.integer(), v.minValue(0));

const BODY = {
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
};
