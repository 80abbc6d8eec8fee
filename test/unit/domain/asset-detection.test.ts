import { describe, expect, it } from 'vitest';
import { detectAssetType, isValidFor } from '../../../shared/domain/allowlist/asset-detection.ts';
import type { AssetType } from '../../../shared/domain/allowlist/asset-types.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const DETECTED: [string, AssetType][] = [
  ['https://example.com', 'URL'],
  ['http://example.com/pricing?plan=pro', 'URL'],
  ['example.com', 'URL'],
  ['www.example.co.uk', 'URL'],
  ['app.acme.io/login', 'URL'],
  ['https://docs.acme.com/getting-started', 'URL'],
  ['https://93.184.216.34/', 'URL'],
  ['https://ACME.COM/', 'URL'],
  ['https://acme.github.io/', 'URL'],
  ['https://acme.github.io/app', 'PAGE'],
  ['https://acme-wallet.vercel.app/claim', 'PAGE'],
  ['https://sites.google.com/view/acme', 'PAGE'],
  ['https://linktr.ee/acme', 'PAGE'],
  ['https://bit.ly/3acmeX', 'PAGE'],
  ['0x1234567890abcdef1234567890abcdef12345678', 'ADDRESS'],
  ['0x52908400098527886E0F7030069857D2E4169EE7', 'ADDRESS'],
  ['ethereum:0x52908400098527886E0F7030069857D2E4169EE7', 'ADDRESS'],
  ['7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV', 'ADDRESS'],
  ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'ADDRESS'],
  ['@ourcompany', 'TWITTER'],
  ['@Acme_Support', 'TWITTER'],
  ['https://twitter.com/acme', 'TWITTER'],
  ['https://x.com/acme/status/1', 'TWITTER'],
  ['x.com/acme', 'TWITTER'],
  ['https://t.me/acme_official', 'TELEGRAM'],
  ['t.me/joinchat/AbCdEf', 'TELEGRAM'],
  ['https://discord.gg/acme', 'DISCORD'],
  ['https://discord.com/invite/acme', 'DISCORD'],
  ['https://discord.com/users/80351110224678912', 'DISCORD_USER'],
  ['https://www.instagram.com/acme/', 'INSTAGRAM'],
  ['https://medium.com/@acme', 'MEDIUM'],
  ['https://acme.medium.com/launch-day-1a2b', 'MEDIUM'],
  ['https://github.com/acme', 'GITHUB'],
  ['https://github.com/acme/sdk', 'GITHUB'],
  ['https://www.youtube.com/@acme', 'YOUTUBE'],
  ['https://youtu.be/dQw4w9WgXcQ', 'YOUTUBE'],
  ['https://www.linkedin.com/company/acme', 'LINKEDIN'],
  ['https://twitch.tv/acme', 'TWITCH'],
  ['https://www.tiktok.com/@acme', 'TIKTOK'],
  ['https://www.facebook.com/acme', 'FACEBOOK'],
  ['https://www.npmjs.com/package/acme-sdk', 'NPM'],
  ['https://opensea.io/collection/acme', 'OPENSEA'],
  ['support@acme.com', 'EMAIL'],
  ['mailto:security@acme.com', 'EMAIL'],
  ['+1 (555) 010-9999', 'PHONE_NUMBER'],
  ['ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG', 'IPFS'],
  ['bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi', 'IPFS'],
];

const UNRECOGNISED = ['not a url at all', 'hello', '', '   ', 'javascript:alert(1)', 'https://', 'http://localhost/'];

const INVALID_FOR_TYPE: [string, AssetType][] = [
  ['not a url at all', 'URL'],
  ['0x1234567890abcdef1234567890abcdef12345678', 'URL'],
  ['@ourcompany', 'URL'],
  ['https://example.com', 'ADDRESS'],
  ['0x1234', 'ADDRESS'],
  ['https://example.com', 'TWITTER'],
  ['https://x.com/home', 'TWITTER'],
  ['https://t.me/acme_official', 'TWITTER'],
  ['https://github.com', 'GITHUB'],
  ['https://example.com', 'EMAIL'],
  ['support at acme dot com', 'EMAIL'],
  ['https://x.com/acme', 'TELEGRAM'],
  ['https://example.com/acme', 'DISCORD'],
  ['not a url at all', 'PAGE'],
  ['https://example.com', 'IPFS'],
];

const VALID_FOR_GIVEN_TYPE: [string, AssetType][] = [
  ['acme', 'TWITTER'],
  ['@acme', 'INSTAGRAM'],
  ['https://docs.acme.com/getting-started', 'PAGE'],
  ['https://x.com/acme', 'URL'],
  ['https://ipfs.io/ipfs/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG', 'URL'],
  ['https://acme.com/bonus', 'GOOGLE_AD'],
];

describe('asset type detection', () => {
  it.each(DETECTED)('detects %j as %s, a content valid for that type', (content, type) => {
    expect(detectAssetType(suffixes, content)).toBe(type);
    expect(isValidFor(suffixes, content, type)).toBe(true);
  });

  it.each(UNRECOGNISED)('recognises no type in %j', (content) => {
    expect(detectAssetType(suffixes, content)).toBeUndefined();
  });

  it.each(INVALID_FOR_TYPE)('finds %j not a valid %s', (content, type) => {
    expect(isValidFor(suffixes, content, type)).toBe(false);
  });

  it.each(VALID_FOR_GIVEN_TYPE)('accepts %j as the given type %s', (content, type) => {
    expect(isValidFor(suffixes, content, type)).toBe(true);
  });
});
