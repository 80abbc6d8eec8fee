import * as v from 'valibot';
import type { OperationDoc } from './operation-doc.ts';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const hex = (digits: number) => v.pipe(v.string(), v.regex(new RegExp(`^[0-9a-f]{${digits}}$`)));
const artifact = v.object({ token: hex(32), count, url: v.pipe(v.string(), v.url()), bytes: count });
const VERDICT = v.picklist(['ALLOWED', 'BLOCKED']);
const jws = v.pipe(v.string(), v.regex(/^[\w-]+\.[\w-]+\.[\w-]+$/));
const publicJwk = v.object({
  kty: v.literal('OKP'),
  crv: v.literal('Ed25519'),
  x: v.string(),
  kid: v.string(),
  use: v.literal('sig'),
});

const EXPRESSIONS = `**Expressions** (\`algoVersion\` 1). Content is first put in the canonical form of \`POST /asset/check\` (trim, scheme \`https://\` when none, WHATWG URL parsing, lower-case punycode host without trailing dot, port, userinfo and fragment dropped, IPv4-mapped IPv6 folded to IPv4, path percent-decoded and re-escaped, dot segments resolved, trailing slash dropped). Its expressions, most specific first, are host and path joined as Safe Browsing writes them: the exact host (\`www.\` removed) with the exact path (\`a.b.example/1/2.html\`, no query: the query never decides a verdict), then with the path's first two and first one segments as prefixes with a trailing slash (\`a.b.example/1/\`), then the host with \`/\` (\`a.b.example/\`), then up to 4 parent domains with \`/\` (\`b.example/\`), the nearest to the registrable domain kept, never a public suffix or a hosting platform's domain (\`github.io\`, \`pages.dev\`, \`medium.com\`). Pages on path-hosted platforms (\`x.com/acme\`, \`t.me/acme\`, \`sites.google.com/view/x\`) are expressions of the tenant path, never of the bare host. Content that is not a URL is its canonical key as is: an EVM address in lower case, \`mailto:<local>@<domain>\` (then the domain's expressions for a non-webmail domain), \`tel:+<digits>\`, \`ipfs:<cid>\`. A full hash is SHA-256 of the expression's UTF-8 bytes; its prefix is the first 4 bytes, written as 8 lower-case hex digits. The set holds the expressions of the service's own BLOCKED entries: a host entry as \`<host>/\`, a path entry both exact and as a prefix (\`a.example/x\` and \`a.example/x/\`); never an ALLOWED one. With the stage setting \`blocklistExternalLists\` on (the default), the \`lists\` artifact adds the BLOCKED entries of every external list \`POST /asset/check\` consults (eth-phishing-detect's domains as \`<domain>/\`, the key-based lists' entries as above) and eth-phishing-detect's look-alike rule (its fuzzy list and tolerance), so a synced client reaches the check's verdict on list-blocked content too.`;

const FORMAT = `**Artifact format** (served as is, \`application/octet-stream\` without \`Content-Encoding\`: the gzip is content; \`bytes\` is this size). gzip of: bytes 0–3 the ASCII magic \`APBL\`; byte 4 \`algoVersion\`; byte 5 kind (1 snapshot: one list, every current prefix; 2 recent: two lists, the prefixes added since the snapshot, then those removed; 3 lists: one list, the external lists' BLOCKED prefixes, then the look-alike rule: 1 byte tolerance, 4 bytes count (big-endian), and per protected domain 2 bytes length (big-endian) and its ASCII bytes). Each list: 4 bytes count (big-endian), 1 byte Rice parameter k, 4 bytes length (big-endian) of the coded gaps, then, when count > 0, 4 bytes the smallest prefix (big-endian) and \`length\` bytes of gaps: for each next prefix (sorted ascending, unique) d = prefix − previous − 1 is Rice–Golomb coded, d >> k in unary (that many 1 bits, then a 0 bit) followed by the low k bits of d, most significant bit first; bits fill each byte from its high bit, the last byte padded with 0 bits. About log2(mean gap) + 1.5 bits a prefix.`;

const MANIFEST = `**Signed manifest.** \`manifest\` is a compact JWS (RFC 7515, \`alg\` \`EdDSA\` with an Ed25519 key, RFC 8037; header \`kid\`) whose payload is \`{algoVersion, version, issuedAt, expiresAt, artifacts: [{token, sha256, bytes}]}\`: one entry each for the answer's \`snapshot\`, \`recent\` and \`lists\`, \`sha256\` (64 lower-case hex) and \`bytes\` of the artifact exactly as served. \`expiresAt\` is 24 h after \`issuedAt\` (ISO 8601, UTC); the manifest is signed again at the first answer after its content or the signing key changed, or once it has less than 12 h left, so it never lapses while the service answers. Verify with a key of \`GET /asset/blocklist/keys\` (fetch it again when \`kid\` is unknown), then refuse an expired manifest, a \`version\` lower than the last one accepted, and any artifact whose SHA-256 or size differs from its entry; on a refusal keep the last good state. Key rotation (\`npm run admin -- blocklist rotate-key\`) publishes the next key 15 minutes before it signs, and keeps the previous one published for 7 days.`;

const CLIENT = `**Client procedure.** (1) \`GET /asset/blocklist/version\` and verify its \`manifest\` (below). (2) When \`algoVersion\` differs from the one held, drop everything held. (3) When \`snapshot.token\` differs from the one held, download \`snapshot.url\` (no key; send \`If-None-Match: "<token>"\` when holding it) and replace the local set with its prefixes. (4) When \`recent.token\` differs, download \`recent.url\`: the local set is the snapshot's prefixes plus its added, minus its removed. (5) When \`lists.token\` differs, download \`lists.url\`: its prefixes join the local set, and its look-alike rule is kept. (6) Repeat from (1) every few seconds to minutes; artifacts are immutable and cached by the CDN. To look up a URL: compute its expressions, its domain expressions (every suffix of its host, \`www.\` kept, down to the last label, each with \`/\`; none for a path-hosted tenant or non-URL content) and their prefixes; when none is in the local set and the host is no look-alike, the URL is not blocked and nothing is sent. Otherwise send only the matching prefixes to \`POST /asset/blocklist/confirm\` and decide as \`POST /asset/check\` does, from \`verdicts\`: the service's verdict first (walking the expressions most specific first, the first with a \`service\` verdict, or found in a returned \`allowed\` group, decides), else an allowlisting by any list wins over any list's block, where eth-phishing-detect judges the domain expressions (an ALLOWED one anywhere wins, else a BLOCKED one or a look-alike blocks) and each other list its most specific expression with a verdict. A list block (or a look-alike) is settled only after a second confirm of all the URL's prefixes, since an allowlisting of any of them overrides it; cache the returned groups for a few minutes. A 409 means \`algoVersion\` moved: re-sync.`;

/** The hash-prefix blocklist routes: how clients sync it and confirm a local match without sending what they visit. */
export const BLOCKLIST_OPERATIONS: Record<string, OperationDoc> = {
  'get-blocklist-version': {
    summary: 'Version of the service verdicts and the blocklist artifacts',
    description: `The version of the service's own verdicts (every ALLOWED and BLOCKED entry of the check index, watch flags included): an opaque string that orders like the changelog and moves on every verdict change, the time of that change, and the number of live verdicts; and the hash-prefix blocklist's artifacts, \`snapshot\` (every current prefix of the service's verdicts), \`recent\` (what was added and removed since that snapshot) and \`lists\` (the external lists' prefixes and look-alike rule, rebuilt when a list sync changes them; empty when the stage publishes only the service's verdicts), each with its token (it changes exactly when the artifact's content does), prefix count, absolute URL (the CDN in AWS, this API locally) and size, and the signed \`manifest\` of the answer. Any valid key. A client following \`POST /asset/changelog\` compares \`version\` with the one it holds.\n\n${MANIFEST}\n\n${EXPRESSIONS}\n\n${FORMAT}\n\n${CLIENT}`,
    tag: 'Asset check',
    responses: {
      200: {
        description: 'The version and the artifacts',
        body: v.object({
          algoVersion: v.pipe(v.number(), v.integer(), v.minValue(1)),
          version: v.string(),
          updatedAt: v.pipe(v.string(), v.isoTimestamp()),
          entries: count,
          snapshot: artifact,
          recent: artifact,
          lists: artifact,
          manifest: jws,
        }),
        example: {
          algoVersion: 1,
          version: '1795255200000-3f1c0a9e4b2d7c65-000000000003',
          updatedAt: '2026-11-21T10:00:00.000Z',
          entries: 1834,
          snapshot: {
            token: '9e107d9d372bb6826bd81d3542a419d6',
            count: 1712,
            url: 'https://d111111abcdef8.cloudfront.net/blocklist/artifacts/9e107d9d372bb6826bd81d3542a419d6',
            bytes: 3391,
          },
          recent: {
            token: 'e4d909c290d0fb1ca068ffaddf22cbd0',
            count: 3,
            url: 'https://d111111abcdef8.cloudfront.net/blocklist/artifacts/e4d909c290d0fb1ca068ffaddf22cbd0',
            bytes: 58,
          },
          lists: {
            token: '0cc175b9c0f1b6a831c399e269772661',
            count: 13741,
            url: 'https://d111111abcdef8.cloudfront.net/blocklist/artifacts/0cc175b9c0f1b6a831c399e269772661',
            bytes: 25012,
          },
          manifest:
            'eyJhbGciOiJFZERTQSIsImtpZCI6IjNsR3BmQXZMZ1NzYmVsZmFQVktBMDNWQ2FzcXZKaUdjRGJxX2JZdV90dTQifQ.eyJhbGdvVmVyc2lvbiI6MX0.c2lnbmF0dXJl',
        },
      },
    },
  },
  'confirm-blocklist-prefixes': {
    summary: 'Full hashes under blocklist prefixes',
    description: `For each requested prefix (1 to 1,000 unique, 8 lower-case hex digits), the full hashes (64 hex digits) of the current BLOCKED expressions that start with it; an empty array when none does. \`allowed\` lists, for a requested prefix that has any, the full hashes of ALLOWED expressions (an organization's allowlisting) that the check consults before an expression of that prefix: a URL under an allowlisted \`good.evil.example\` stays ALLOWED though \`evil.example\` is blocked. \`matches\` holds the BLOCKED expressions of the external lists too. \`verdicts\` names, for every listed expression under the requested prefixes (BLOCKED or ALLOWED, by the service or by any list the check consults), what the service and each list say of it, by full hash: a client decides from it exactly as the check does (procedure below). \`algoVersion\` must be the current one, else 409 \`algoVersion <n> is current; re-sync\` with \`data.algoVersion\`. Any valid key.\n\n${CLIENT}`,
    tag: 'Asset check',
    requestExample: { algoVersion: 1, prefixes: ['1a2b3c4d'] },
    responses: {
      200: {
        description: 'The full hashes under each prefix',
        body: v.object({
          algoVersion: v.pipe(v.number(), v.integer(), v.minValue(1)),
          matches: v.record(hex(8), v.array(hex(64))),
          allowed: v.record(hex(8), v.array(hex(64))),
          verdicts: v.record(
            hex(64),
            v.partial(
              v.object({
                service: VERDICT,
                'eth-phishing-detect': VERDICT,
                vendor: VERDICT,
                seal: VERDICT,
                'polkadot-phishing': VERDICT,
              }),
            ),
          ),
        }),
        example: {
          algoVersion: 1,
          matches: { '1a2b3c4d': ['1a2b3c4d9f0e8d7c6b5a49382716059f0e1d2c3b4a59687766554433221100ff'] },
          allowed: {},
          verdicts: {
            '1a2b3c4d9f0e8d7c6b5a49382716059f0e1d2c3b4a59687766554433221100ff': { 'eth-phishing-detect': 'BLOCKED' },
          },
        },
      },
      409: { description: 'algoVersion is not the current one: re-sync', error: true },
    },
  },
  'get-blocklist-artifact': {
    summary: 'A blocklist artifact',
    description: `A snapshot, recent or lists artifact by its token, as \`GET /asset/blocklist/version\` names it: no key, immutable (\`Cache-Control: public, max-age=31536000, immutable\`), \`ETag\` the token in double quotes, 304 for a matching \`If-None-Match\`. Served by the API locally; in AWS the version names the CDN's URL.\n\n${FORMAT}`,
    tag: 'Asset check',
    responses: {
      200: { description: 'The artifact bytes (gzip)', mediaType: 'application/octet-stream' },
      304: {
        description: 'The artifact the client holds (If-None-Match) is this one',
        mediaType: 'application/octet-stream',
      },
      404: { description: 'No artifact has this token', error: true },
    },
  },
  'get-blocklist-keys': {
    summary: 'Keys that sign blocklist manifests',
    description: `The JWK Set (RFC 7517, RFC 8037) whose keys verify the \`manifest\` of \`GET /asset/blocklist/version\`: the key that signs now and, during a rotation, the next one (published 15 minutes before it signs) and the previous ones (published 7 days after they stopped signing). No key; \`Cache-Control: public, max-age=300\`. A client that meets a \`kid\` it does not hold fetches the set again. The private keys are never answered.\n\n${MANIFEST}`,
    tag: 'Asset check',
    responses: {
      200: {
        description: 'The JWK Set',
        body: v.object({ keys: v.array(publicJwk) }),
        example: {
          keys: [
            {
              kty: 'OKP',
              crv: 'Ed25519',
              x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
              kid: '3lGpfAvLgSsbelfaPVKA03VCasqvJiGcDbq_bYu_tu4',
              use: 'sig',
            },
          ],
        },
      },
    },
  },
};
