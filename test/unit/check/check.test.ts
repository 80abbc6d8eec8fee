import { describe, expect, it } from 'vitest';
import { systemTimer } from '../../../shared/db/adapters/timer.ts';
import { createChecker } from '../../../shared/domain/check/engine.ts';
import type { CheckResult } from '../../../shared/domain/check/types.ts';
import { suffixes } from '../../fixtures/suffixes.ts';
import { CID_V0, CID_V1, verdict, worldIndex, worldSources } from './world.ts';

type Expected = Partial<ReturnType<typeof verdict>>;

const allowed = (extra: Expected = {}): Expected => ({ status: 'ALLOWED', source: 'service', ...extra });
const blocked = (extra: Expected = {}): Expected => ({
  status: 'BLOCKED',
  source: 'service',
  watchStatus: 'DISABLED',
  ...extra,
});
const unknown = (extra: Expected): Expected => ({ status: 'UNKNOWN', source: 'service', ...extra });
const external = (status: 'ALLOWED' | 'BLOCKED', source: CheckResult['source']): Expected => ({
  status,
  source,
  reason: 'external-source',
});

const CASES: [description: string, content: string, expected: Expected][] = [
  ['an allowlisted domain', 'https://acme.com', allowed()],
  ['upper case and a trailing dot', 'ACME.com.', allowed()],
  ['www., a path, a query and a fragment', 'https://www.acme.com/login?next=%2F#top', allowed()],
  ['tabs, newlines and surrounding blanks', '  https://ac\tme.com/\n', allowed()],
  ['a subdomain of an allowlisted domain', 'https://app.acme.com', allowed({ reason: 'parent-domain' })],
  ['a blocked subdomain of an allowlisted brand domain', 'https://evil.acme.com', blocked()],
  ['a subdomain of that blocked subdomain', 'https://a.evil.acme.com/x', blocked({ reason: 'parent-domain' })],
  ['a key both allowlisted and blocked', 'https://claim.acme.com', allowed()],
  ['a blocked domain with a path', 'https://acme-airdrop.xyz/claim', blocked()],
  ['a blocked domain written bare', 'acme-airdrop.xyz', blocked()],
  ['a watchlisted threat', 'watched-scam.xyz', blocked({ watchStatus: 'ENABLED' })],
  ['userinfo dressed as the brand', 'https://acme.com@acme-airdrop.xyz/', blocked()],
  ['userinfo with a password', 'https://acme.com:pw@acme-airdrop.xyz', blocked()],
  ['a port', 'https://acme-airdrop.xyz:8443/', blocked()],
  ['an upper-case host', 'HTTPS://ACME-AIRDROP.XYZ', blocked()],
  ['a percent-encoded host', 'https://%61cme-airdrop.xyz', blocked()],
  ['backslashes for slashes', 'https:\\\\acme-airdrop.xyz\\claim', blocked()],
  ['a protocol-relative URL', '//acme-airdrop.xyz/x', blocked()],
  ['a trailing dot on a bare domain', 'acme-airdrop.xyz.', blocked()],
  ['a bare domain with a port', 'acme-airdrop.xyz:8080/path', blocked()],
  ['an IDN look-alike in Unicode', 'https://аcme.com/', blocked()],
  ['the same IDN in punycode', 'https://xn--cme-5cd.com', blocked()],
  ['an IPv4 address as one decimal number', 'http://3405803783/', blocked()],
  ['an IPv4 address in hex and short form', 'http://0xcb.0.0x71.7', blocked()],
  ['an IPv4-mapped IPv6 address', 'http://[::ffff:203.0.113.7]/', blocked()],
  ['a private IPv4 address', 'http://192.168.1.1/admin', unknown({ reason: 'not-found' })],
  ['a loopback address in octal', 'http://0177.0.0.1', unknown({ reason: 'not-found' })],
  ['localhost with a port', 'localhost:3000', unknown({ reason: 'not-found' })],
  ['a link-local IPv6 address', 'http://[fe80::1]/', unknown({ reason: 'not-found' })],
  ['an allowlisted X account', 'https://x.com/acme', allowed()],
  ['a post of that account on twitter.com', 'https://twitter.com/ACME/status/123?s=20', allowed()],
  ['a blocked account on mobile.twitter.com', 'https://mobile.twitter.com/acme_support', blocked()],
  ['an unknown account', 'https://x.com/acmee', unknown({ reason: 'not-found' })],
  ['the X home page', 'https://x.com', unknown({ reason: 'hosting-domain' })],
  ['a reserved X path', 'https://x.com/home', unknown({ reason: 'hosting-domain' })],
  ['a blocked Telegram channel preview', 'https://t.me/s/acme_airdrop', blocked()],
  ['a blocked Telegram channel on telegram.me', 'https://telegram.me/ACME_AIRDROP', blocked()],
  ['a page of an allowlisted Google site', 'https://sites.google.com/view/acme-docs/home', allowed()],
  ['another Google site', 'https://sites.google.com/view/other', unknown({ reason: 'not-found' })],
  ['Google Sites itself', 'https://sites.google.com/', unknown({ reason: 'hosting-domain' })],
  ['an allowlisted tenant of a hosting suffix', 'acme.pages.dev', allowed()],
  ['a subdomain of that tenant', 'https://preview.acme.pages.dev', allowed({ reason: 'parent-domain' })],
  ['a blocked tenant of a hosting suffix', 'https://phish.pages.dev', blocked()],
  ['a neighbour tenant of blocked and allowed ones', 'https://other.pages.dev', unknown({ reason: 'not-found' })],
  ['a hosting suffix itself', 'pages.dev', unknown({ reason: 'hosting-domain' })],
  ['a curated hosting domain', 'https://weebly.com', unknown({ reason: 'hosting-domain' })],
  ['a bare public suffix', 'https://co.uk', unknown({ reason: 'hosting-domain' })],
  ['a deeper page under a blocked page', 'https://evil-host.com/login/step-2', blocked()],
  ['another page of that host', 'https://evil-host.com/about', unknown({ reason: 'not-found' })],
  ['an allowlisted EVM address in lower case', '0x52908400098527886e0f7030069857d2e4169ee7', allowed()],
  ['the same address checksummed', '0x52908400098527886E0F7030069857D2E4169EE7', allowed()],
  ['a blocked EVM address in upper case', '0x000000000000000000000000000000000000DEAD', blocked()],
  ['an EIP-681 payment link to it', 'ethereum:0x000000000000000000000000000000000000dead@1/transfer', blocked()],
  ['an allowlisted email address', 'Support@ACME.com', allowed()],
  [
    'an email address on a blocked domain',
    'mailto:ceo@acme-airdrop.xyz?subject=hi',
    blocked({ reason: 'parent-domain' }),
  ],
  ['an email address at a mail provider', 'someone@gmail.com', unknown({ reason: 'not-found' })],
  ['a blocked phone number', 'tel:+1-555-010-0200', blocked()],
  ['a blocked IPFS CID behind a gateway', `https://ipfs.io/ipfs/${CID_V0}/index.html`, blocked()],
  ['a blocked CIDv1 on a subdomain gateway', `https://${CID_V1}.ipfs.dweb.link/`, blocked()],
  ['a blocked video by its watch URL', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=3', blocked()],
  ['a chrome: page', 'chrome://settings', unknown({ code: 'internal-scheme' })],
  ['about:blank', 'about:blank', unknown({ code: 'internal-scheme' })],
  ['a javascript: URL', 'javascript:alert(1)', unknown({ code: 'internal-scheme' })],
  ['an extension page', 'chrome-extension://abcdef/popup.html', unknown({ code: 'internal-scheme' })],
  ['a data: URL', 'data:text/html,<h1>hi</h1>', unknown({ code: 'internal-scheme' })],
  ['a file: URL', 'file:///etc/passwd', unknown({ code: 'internal-scheme' })],
  ['a host with a space', 'https://exa mple.com', unknown({ code: 'parse-error' })],
  ['a URL without a host', 'http://', unknown({ code: 'parse-error' })],
  ['a host with forbidden characters', 'https://exa$mple.com', unknown({ code: 'parse-error' })],
  ['a plain word', 'hello', unknown({ reason: 'unsupported-type' })],
  [
    'an unsupported scheme',
    'magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a',
    unknown({ reason: 'unsupported-type' }),
  ],
  ['content no source knows', 'never-seen-before.com', unknown({ reason: 'not-found' })],
  ['a domain allowlisted by eth-phishing-detect', 'https://metamask.io', external('ALLOWED', 'eth-phishing-detect')],
  [
    'a look-alike of an eth-phishing-detect fuzzy entry',
    'https://metamaskk.io',
    external('BLOCKED', 'eth-phishing-detect'),
  ],
  ['a domain eth-phishing-detect blocks', 'eth-drainer.com', external('BLOCKED', 'eth-phishing-detect')],
  ['a subdomain of it', 'https://wallet.eth-drainer.com/', external('BLOCKED', 'eth-phishing-detect')],
  ['a domain only the vendor lists', 'vendor-only-phish.com', external('BLOCKED', 'vendor')],
  ['a page under a page the vendor lists', 'https://shared-host.net/phish/step', external('BLOCKED', 'vendor')],
  ['an address SEAL lists', '0x1111111111111111111111111111111111111111', external('BLOCKED', 'seal')],
  ['a domain polkadot-phishing denies', 'https://polkadot-claim.app', external('BLOCKED', 'polkadot-phishing')],
  ['a domain polkadot-phishing allows', 'polkadot.network', external('ALLOWED', 'polkadot-phishing')],
  ['one list allowing and another denying', 'trusted-dex.org', external('ALLOWED', 'eth-phishing-detect')],
  ['a domain the service allows and eth-phishing-detect blocks', 'https://acme.com/app', allowed()],
  ['a source that hangs', 'vendor-slow.example.com', unknown({ reason: 'timeout' })],
  ['a source that fails', 'vendor-error.example.com', unknown({ reason: 'source-error' })],
];

describe('asset check', () => {
  const checker = createChecker({ suffixes, timer: systemTimer, index: worldIndex(), sources: worldSources });

  it('has a case for every published reason and code', () => {
    const seen = new Set(CASES.flatMap(([, , expected]) => [expected.reason, expected.code]));

    const spec = 'not-found unsupported-type source-error parent-domain hosting-domain timeout external-source';
    for (const value of [...spec.split(' '), 'parse-error', 'internal-scheme']) {
      expect(seen, value).toContain(value);
    }
  });

  it.each(CASES)('returns the expected verdict for %s (%s)', async (_description, content, expected) => {
    const result = await checker.check(content);

    expect(verdict(result)).toEqual({ reason: undefined, code: undefined, watchStatus: undefined, ...expected });
  });
});
