import type { AssetType } from './asset-types.ts';
import { canonicalize } from './check/canonical.ts';

/** Hosts whose URLs are accounts or pages of one platform, by the asset type they make. */
const PLATFORM_HOSTS: Readonly<Record<string, AssetType>> = {
  't.me': 'TELEGRAM',
  'telegram.me': 'TELEGRAM',
  'twitter.com': 'TWITTER',
  'x.com': 'TWITTER',
  'discord.gg': 'DISCORD',
  'instagram.com': 'INSTAGRAM',
  'medium.com': 'MEDIUM',
  'github.com': 'GITHUB',
  'youtube.com': 'YOUTUBE',
  'youtu.be': 'YOUTUBE',
  'linkedin.com': 'LINKEDIN',
  'twitch.tv': 'TWITCH',
  'tiktok.com': 'TIKTOK',
};

const EVM_ADDRESS = /^0x[0-9a-f]{40}$/i;
const HANDLE = /^@\w{1,50}$/;
const EMAIL = /^[^\s@/:]+@[^\s@/:]+\.[^\s@/:]+$/;

const hostOf = (content: string): { host: string; path: string } | undefined => {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(content) ? content : `https://${content}`);
    return { host: url.hostname.toLowerCase().replace(/^(www|m|mobile)\./, ''), path: url.pathname };
  } catch {
    return undefined;
  }
};

/**
 * The asset type of reported content with no type given: an EVM address, a `@handle` (Twitter),
 * an email, a known platform's URL, a page on a path-hosting platform, or else a URL.
 * `undefined` when the content is none of these.
 */
export const detectAssetType = (content: string): AssetType | undefined => {
  const text = content.trim();
  if (EVM_ADDRESS.test(text)) return 'ADDRESS';
  if (HANDLE.test(text)) return 'TWITTER';
  if (EMAIL.test(text)) return 'EMAIL';
  const target = canonicalize(text);
  if (target.kind === 'hosting-domain') return 'URL';
  if (target.kind !== 'keys') return undefined;
  const url = hostOf(text);
  if (url === undefined) return undefined;
  if (url.host === 'discord.com' && url.path.startsWith('/invite/')) return 'DISCORD';
  const platform = PLATFORM_HOSTS[url.host];
  if (platform !== undefined) return platform;
  return target.domain === undefined ? 'PAGE' : 'URL';
};
