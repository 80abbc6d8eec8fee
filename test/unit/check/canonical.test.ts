import { describe, expect, it } from 'vitest';
import type { AssetType } from '../../../shared/domain/allowlist/asset-types.ts';
import { canonicalize, entryKeyOf } from '../../../shared/domain/check/canonical.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

/** Candidate keys, most specific first, or the kind of content that has none. */
const keysOf = (content: string, type?: AssetType) => {
  const target = canonicalize(suffixes, content, type);
  return target.kind === 'keys' ? target.keys : target.kind;
};

const GOLDEN: [content: string, keys: string[] | string][] = [
  ['https://acme.com', ['acme.com']],
  ['https://WWW.Acme.COM./', ['acme.com']],
  ['https://good.com@evil.com/login', ['evil.com/login', 'evil.com']],
  ['https://evil.com:8443/a/b/c?q=1#frag', ['evil.com/a/b/c', 'evil.com/a/b', 'evil.com/a', 'evil.com']],
  ['https://ex%61mple.com/%7e/a%2fb/../c', ['example.com/~/c', 'example.com/~', 'example.com']],
  ['https://example.com//a/./b/', ['example.com/a/b', 'example.com/a', 'example.com']],
  ['https://example.com/a%20b', ['example.com/a%20b', 'example.com']],
  ['https://example.com/caf%C3%A9', ['example.com/caf%C3%A9', 'example.com']],
  ['https://Bücher.de', ['xn--bcher-kva.de']],
  ['https://ｅｘａｍｐｌｅ.com', ['example.com']],
  ['https://a..b.example.com..', ['a.b.example.com', 'b.example.com', 'example.com']],
  [
    'https://a.b.c.d.e.f.example.co.uk',
    ['a.b.c.d.e.f.example.co.uk', 'd.e.f.example.co.uk', 'e.f.example.co.uk', 'f.example.co.uk', 'example.co.uk'],
  ],
  ['http://3405803783', ['203.0.113.7']],
  ['http://203.0.113.7/x', ['203.0.113.7/x', '203.0.113.7']],
  ['http://[64:ff9b::203.0.113.7]', ['203.0.113.7']],
  ['http://[2001:db8::1]/', ['[2001:db8::1]']],
  ['http://10.0.0.8', 'private-address'],
  ['http://[::1]:8080', 'private-address'],
  ['http://printer.local', 'private-address'],
  ['evil.pages.dev', ['evil.pages.dev']],
  ['a.evil.pages.dev', ['a.evil.pages.dev', 'evil.pages.dev']],
  ['https://www.github.io', ['www.github.io']],
  ['https://evil.weebly.com', ['evil.weebly.com']],
  ['https://bob.medium.com/post', ['bob.medium.com/post', 'bob.medium.com']],
  ['https://sites.google.com/view/x/page', ['sites.google.com/view/x/page', 'sites.google.com/view/x']],
  [
    'https://docs.google.com/forms/d/e/1FAIpQLSc/viewform',
    ['docs.google.com/forms/d/e/1FAIpQLSc/viewform', 'docs.google.com/forms/d/e/1FAIpQLSc'],
  ],
  ['https://medium.com/@Alice/a-post', ['medium.com/@alice/a-post', 'medium.com/@alice']],
  [
    'https://github.com/Acme/Repo/issues/3',
    ['github.com/acme/repo/issues/3', 'github.com/acme/repo', 'github.com/acme'],
  ],
  ['https://discord.com/invite/AbC123', ['discord.gg/AbC123']],
  ['https://t.me/joinchat/AbCdEf', ['t.me/+AbCdEf']],
  ['https://www.youtube.com/@Acme/videos', ['youtube.com/@acme/videos', 'youtube.com/@acme']],
  ['https://youtu.be/dQw4w9WgXcQ', ['youtu.be/dQw4w9WgXcQ']],
  ['https://www.facebook.com/profile.php?id=1000123', ['facebook.com/1000123']],
  [
    'https://play.google.com/store/apps/details?id=com.acme.wallet&hl=en',
    ['play.google.com/store/apps/details/com.acme.wallet'],
  ],
  ['https://apps.apple.com/us/app/acme-wallet/id1234567890', ['apps.apple.com/id1234567890']],
  [
    'https://chromewebstore.google.com/detail/acme/abcdefghijklmnopabcdefghijklmnop',
    ['chromewebstore.google.com/detail/abcdefghijklmnopabcdefghijklmnop'],
  ],
  ['https://www.npmjs.com/package/@acme/sdk', ['npmjs.com/package/@acme/sdk']],
  ['https://pypi.org/project/Acme_SDK/', ['pypi.org/project/acme-sdk']],
  ['https://www.reddit.com/r/Acme/comments/1', ['reddit.com/r/acme/comments/1', 'reddit.com/r/acme']],
  ['https://linktr.ee/Acme', ['linktr.ee/acme']],
  ['https://x.com', 'hosting-domain'],
  ['https://x.com/i/flow/login', 'hosting-domain'],
  ['https://github.io', 'hosting-domain'],
  ['0xAbC0000000000000000000000000000000000001', ['0xabc0000000000000000000000000000000000001']],
  ['mailto:Alice@Example.com', ['mailto:alice@example.com', 'example.com']],
  ['alice@sub.example.com', ['mailto:alice@sub.example.com', 'sub.example.com', 'example.com']],
  ['+44 20 7946 0000', ['tel:+442079460000']],
  ['ipns://Docs.IPFS.tech', ['ipns:docs.ipfs.tech']],
  ['view-source:https://evil.com', 'internal-scheme'],
  ['moz-extension://abc/page.html', 'internal-scheme'],
  ['', 'parse-error'],
  ['https://', 'parse-error'],
  ['a b', 'unsupported-type'],
];

const TYPED: [content: string, type: AssetType, key: string][] = [
  ['@Acme', 'TWITTER', 'x.com/acme'],
  ['https://twitter.com/Acme', 'TWITTER', 'x.com/acme'],
  ['acme_official', 'TELEGRAM', 't.me/acme_official'],
  ['@acme', 'TIKTOK', 'tiktok.com/@acme'],
  ['acme.bsky.social', 'BLUESKY', 'bsky.app/profile/acme.bsky.social'],
  ['acme', 'DISCORD', 'discord.gg/acme'],
  ['@Acme', 'YOUTUBE', 'youtube.com/@acme'],
  ['Acme_SDK', 'PYPI', 'pypi.org/project/acme-sdk'],
  ['5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty', 'ADDRESS', '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty'],
  ['Support@Acme.com', 'EMAIL', 'mailto:support@acme.com'],
  ['(555) 010-0200', 'PHONE_NUMBER', 'tel:5550100200'],
  ['https://acme.com/', 'URL', 'acme.com'],
];

describe('canonical keys', () => {
  it.each(GOLDEN)('gives %s the candidate keys %j', (content, expected) => {
    expect(keysOf(content)).toEqual(expected);
  });

  it.each(TYPED)('keys the %s asset of type %s as %s', (content, type, key) => {
    expect(entryKeyOf(suffixes, content, type)).toBe(key);
  });

  it.each([
    'https://acme.com/login?x=1',
    'https://twitter.com/Acme/status/1',
    '0xAbC0000000000000000000000000000000000001',
    'https://sites.google.com/view/acme',
  ])('stores an entry for %s under the first key its check looks up', (content) => {
    const target = canonicalize(suffixes, content);

    expect(target.kind === 'keys' ? target.keys[0] : undefined).toBe(entryKeyOf(suffixes, content));
  });

  it('has no entry key for a hosting platform itself', () => {
    expect(entryKeyOf(suffixes, 'https://medium.com', 'URL')).toBeUndefined();
  });
});
