import { canonicalize, onHostingPlatform, type PublicSuffixes, platformRule } from '../check/index.ts';
import type { AssetType } from './asset-types.ts';

/**
 * Hosts of the platforms whose URLs name an account of one asset type, as the check index
 * writes them (the canonical keys of `canonical.ts` start with one of these). A leading dot
 * stands for every subdomain (people's own sites on the platform).
 */
const PLATFORM_HOSTS: Partial<Record<AssetType, readonly string[]>> = {
  TWITTER: ['x.com', 'twitter.com', 'mobile.twitter.com', 'mobile.x.com'],
  TELEGRAM: ['t.me', 'telegram.me', 'telegram.dog'],
  DISCORD: ['discord.gg', 'discord.com', 'discordapp.com'],
  DISCORD_USER: ['discord.com', 'discordapp.com'],
  INSTAGRAM: ['instagram.com'],
  MEDIUM: ['medium.com', '.medium.com'],
  GITHUB: ['github.com', 'gist.github.com'],
  YOUTUBE: ['youtube.com', 'm.youtube.com', 'youtu.be'],
  LINKEDIN: ['linkedin.com'],
  TWITCH: ['twitch.tv'],
  TIKTOK: ['tiktok.com', 'vm.tiktok.com'],
  FACEBOOK: ['facebook.com', 'fb.com', 'm.facebook.com', 'web.facebook.com', 'mbasic.facebook.com'],
  REDDIT: ['reddit.com', 'old.reddit.com', 'new.reddit.com'],
  THREADS: ['threads.net', 'threads.com'],
  OPENSEA: ['opensea.io'],
  BLUESKY: ['bsky.app'],
  FARCASTER: ['warpcast.com', 'farcaster.xyz'],
  NPM: ['npmjs.com'],
  PYPI: ['pypi.org'],
  RUST_PACKAGE: ['crates.io'],
  DOCKER_HUB: ['hub.docker.com'],
  APPLE_APP_STORE: ['apps.apple.com', 'itunes.apple.com'],
  GOOGLE_APP_STORE: ['play.google.com'],
  CHROME_WEB_STORE: ['chromewebstore.google.com', 'chrome.google.com'],
  MOZILLA_ADDONS: ['addons.mozilla.org'],
  OPERA_ADDONS: ['addons.opera.com'],
  WHATSAPP: ['wa.me', 'api.whatsapp.com', 'chat.whatsapp.com'],
  PATREON: ['patreon.com'],
  PINTEREST: ['pinterest.com'],
  SNAPCHAT: ['snapchat.com'],
  SUBSTACK: ['substack.com', '.substack.com'],
  SOUNDCLOUD: ['soundcloud.com'],
  VIMEO: ['vimeo.com'],
  QUORA: ['quora.com'],
  DEBANK: ['debank.com'],
  GALXE: ['galxe.com'],
  CALENDLY: ['calendly.com'],
  GOOGLE_FORM: ['forms.gle'],
  FLICKR: ['flickr.com'],
  BEHANCE: ['behance.net'],
  DEVIANTART: ['deviantart.com'],
  RARIBLE: ['rarible.com'],
  ZORA: ['zora.co'],
  VELOG: ['velog.io'],
  HACKMD: ['hackmd.io'],
  ETSY: ['etsy.com'],
  ARCHIVE_ORG: ['archive.org'],
  FIVE_HUNDRED_PX: ['500px.com'],
};

const hostMatches = (host: string, pattern: string): boolean =>
  pattern.startsWith('.') ? host.endsWith(pattern) && host.length > pattern.length : host === pattern;

const onPlatform = (host: string, type: AssetType): boolean =>
  PLATFORM_HOSTS[type]?.some((pattern) => hostMatches(host, pattern)) ?? false;

/** `@handle` alone is a Twitter account (the convention of the published clients). */
const TWITTER_HANDLE = /^@[A-Za-z0-9_]{1,50}$/;
const EVM_KEY = /^0x[0-9a-f]{40}$/;
/** Base58 (Bitcoin legacy, Solana) and bech32 (`bc1…`, `cosmos1…`) account addresses. */
const OTHER_ADDRESS = /^(?:[1-9A-HJ-NP-Za-km-z]{32,48}|[a-z]{1,20}1[02-9ac-hj-np-z]{20,90})$/;
const WEB_SCHEME = /^(?:https?|wss?|ftp):/i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:(?!\d)/i;

type Reading =
  | { kind: 'email' | 'phone' | 'address' }
  /** `url`: written as a URL (a gateway link), not as a bare content id. */
  | { kind: 'ipfs'; url: boolean }
  | { kind: 'web'; key: string; host: string };

/** What the content is, read the way the check reads it; undefined when it is nothing the service knows. */
const read = (suffixes: PublicSuffixes, content: string, type?: AssetType): Reading | undefined => {
  const text = content.trim();
  if (OTHER_ADDRESS.test(text) && (type === undefined || type === 'ADDRESS')) return { kind: 'address' };
  const target = canonicalize(suffixes, text, type);
  if (target.kind !== 'keys') return undefined;
  const key = target.keys[0] as string;
  if (key.startsWith('mailto:')) return { kind: 'email' };
  if (key.startsWith('tel:')) return { kind: 'phone' };
  if (EVM_KEY.test(key)) return { kind: 'address' };
  const url = WEB_SCHEME.test(text) || (!ANY_SCHEME.test(text) && text.includes('/'));
  if (key.startsWith('ipfs:') || key.startsWith('ipns:')) return { kind: 'ipfs', url };
  if (ANY_SCHEME.test(text) && !WEB_SCHEME.test(text)) return undefined;
  const slash = key.indexOf('/');
  return { kind: 'web', key, host: slash < 0 ? key : key.slice(0, slash) };
};

const PLATFORM_TYPES = Object.keys(PLATFORM_HOSTS) as AssetType[];

const platformTypeOf = (host: string, key: string): AssetType | undefined => {
  if (onPlatform(host, 'DISCORD_USER') && key.startsWith(`${host}/users/`)) return 'DISCORD_USER';
  return PLATFORM_TYPES.find((type) => type !== 'DISCORD_USER' && onPlatform(host, type));
};

/** A path on a site whose owner is a tenant of a hosting platform (`acme.github.io/app`, `linktr.ee/acme`). */
const isHostedPage = (suffixes: PublicSuffixes, key: string, host: string): boolean =>
  key.includes('/') ? onHostingPlatform(suffixes, host) || platformRule(host) !== undefined : false;

/**
 * The asset type of `content` when the client gave none: addresses, e-mail
 * addresses, `@handle` (Twitter), accounts on known platforms by their URL, pages on hosting
 * platforms (PAGE), any other URL or bare domain (URL). Undefined: not recognisable.
 */
export const detectAssetType = (suffixes: PublicSuffixes, content: string): AssetType | undefined => {
  if (TWITTER_HANDLE.test(content.trim())) return 'TWITTER';
  const reading = read(suffixes, content);
  if (reading === undefined) return undefined;
  switch (reading.kind) {
    case 'email':
      return 'EMAIL';
    case 'phone':
      return 'PHONE_NUMBER';
    case 'ipfs':
      return 'IPFS';
    case 'address':
      return 'ADDRESS';
    case 'web':
      return (
        platformTypeOf(reading.host, reading.key) ??
        (isHostedPage(suffixes, reading.key, reading.host) ? 'PAGE' : 'URL')
      );
  }
};

/** Whether `content` is an asset of `type`: a platform type needs an account on that platform. */
export const isValidFor = (suffixes: PublicSuffixes, content: string, type: AssetType): boolean => {
  const reading = read(suffixes, content, type);
  if (reading === undefined) return false;
  switch (type) {
    case 'EMAIL':
      return reading.kind === 'email';
    case 'PHONE_NUMBER':
      return reading.kind === 'phone';
    case 'IPFS':
      return reading.kind === 'ipfs';
    case 'ADDRESS':
      return reading.kind === 'address';
    case 'URL':
    case 'PAGE':
      return reading.kind === 'web' || (reading.kind === 'ipfs' && reading.url);
    default:
      return PLATFORM_HOSTS[type] === undefined || (reading.kind === 'web' && onPlatform(reading.host, type));
  }
};
