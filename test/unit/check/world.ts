import type { AssetType } from '../../../shared/domain/allowlist/asset-types.ts';
import { entryKeyOf } from '../../../shared/domain/check/canonical.ts';
import { ethPhishingSource } from '../../../shared/domain/check/eth-phishing-detect.ts';
import { listSource } from '../../../shared/domain/check/lists.ts';
import type {
  CheckIndexStore,
  CheckResult,
  ExternalSource,
  IndexEntry,
  KeyTarget,
} from '../../../shared/domain/check/types.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

type Entry = string | { content: string; type: AssetType };

const keyOf = (entry: Entry): string => {
  const key = typeof entry === 'string' ? entryKeyOf(suffixes, entry) : entryKeyOf(suffixes, entry.content, entry.type);
  if (key === undefined) throw new Error(`no entry key for ${JSON.stringify(entry)}`);
  return key;
};

/**
 * An in-memory check index keyed exactly as the repositories key it: allowlisted assets add
 * `allow`, approved threats add `block`, watchlisted ones `watch`.
 */
export const memoryIndex = (given: { allow?: Entry[]; block?: Entry[]; watch?: Entry[] }) => {
  const entries = new Map<string, IndexEntry>();
  const bump = (entry: Entry, field: keyof IndexEntry) => {
    const key = keyOf(entry);
    const current = entries.get(key) ?? { allow: 0, block: 0, watch: 0 };
    entries.set(key, { ...current, [field]: current[field] + 1 });
  };
  for (const entry of given.allow ?? []) bump(entry, 'allow');
  for (const entry of given.block ?? []) bump(entry, 'block');
  for (const entry of given.watch ?? []) {
    bump(entry, 'block');
    bump(entry, 'watch');
  }
  const store: CheckIndexStore = { lookup: (keys) => keys.map((key) => entries.get(key)) };
  return store;
};

/** A live source in front of another: never answers for `hang`, rejects for `fail` (fault injection). */
export const liveSource = (
  inner: ExternalSource,
  { budgetMs = 20, hang = [] as string[], fail = [] as string[] } = {},
): ExternalSource => ({
  name: inner.name,
  budgetMs,
  check: (target: KeyTarget) => {
    if (target.keys.some((key) => hang.includes(key))) return new Promise(() => {});
    if (target.keys.some((key) => fail.includes(key))) return Promise.reject(new Error('vendor API answered 503'));
    const answer = inner.check(target);
    return answer === undefined ? undefined : Promise.resolve(answer);
  },
});

export const ETH_LISTS = {
  allow: ['trusted-dex.org', 'metamask.io'],
  block: ['eth-drainer.com', 'acme.com'],
  fuzzy: ['metamask.io'],
  tolerance: 2,
};

export const worldSources = (): ExternalSource[] => [
  ethPhishingSource(ETH_LISTS),
  liveSource(listSource('vendor', { allow: [], deny: ['vendor-only-phish.com', 'shared-host.net/phish'] }), {
    hang: ['vendor-slow.example.com'],
    fail: ['vendor-error.example.com'],
  }),
  listSource('seal', { allow: [], deny: ['0x1111111111111111111111111111111111111111', 'seal-listed.io'] }),
  listSource('polkadot-phishing', { allow: ['polkadot.network'], deny: ['polkadot-claim.app', 'trusted-dex.org'] }),
];

export const CID_V0 = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
export const CID_V1 = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';

export const worldIndex = () =>
  memoryIndex({
    allow: [
      'https://acme.com',
      'https://claim.acme.com',
      { content: 'https://x.com/acme', type: 'TWITTER' },
      { content: '0x52908400098527886E0F7030069857D2E4169EE7', type: 'ADDRESS' },
      { content: 'https://sites.google.com/view/acme-docs', type: 'PAGE' },
      { content: 'acme.pages.dev', type: 'URL' },
      { content: 'support@acme.com', type: 'EMAIL' },
    ],
    block: [
      'evil.acme.com',
      'claim.acme.com',
      'acme-airdrop.xyz',
      'https://x.com/acme_support',
      'https://t.me/acme_airdrop',
      '0x000000000000000000000000000000000000dEaD',
      'phish.pages.dev',
      'https://evil-host.com/login',
      'аcme.com',
      '203.0.113.7',
      `ipfs://${CID_V0}`,
      `ipfs://${CID_V1}`,
      { content: '+1 (555) 010-0200', type: 'PHONE_NUMBER' },
      'https://youtu.be/dQw4w9WgXcQ',
    ],
    watch: ['watched-scam.xyz'],
  });

/** The fields a client branches on; absent fields compare equal to undefined. */
export const verdict = (result: CheckResult) => ({
  status: result.status,
  source: result.source,
  reason: result.reason,
  code: result.code,
  watchStatus: result.watchStatus,
});
