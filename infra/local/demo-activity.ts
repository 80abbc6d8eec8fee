import type { AssetType } from '../../shared/domain/allowlist/asset-types.ts';
import type { PublicSuffixes } from '../../shared/domain/check/index.ts';
import type { ActivityChange, TakedownStatus, ThreatStatus } from '../../shared/domain/lifecycle/activity.ts';
import { withBackingReports } from '../../shared/domain/lifecycle/backing-reports.ts';

const ORGANIZATION = 'acme';
const BRANDS = ['acme-wallet', 'acme-exchange'] as const;
const DAYS = 90;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** mulberry32: a small seeded generator, so the demo is the same on every start of the same day. */
const generator = (seed: number) => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    below: (n: number): number => Math.floor(next() * n),
    chance: (p: number): boolean => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
};

const THREAT_SHAPES: readonly { type: AssetType; content: (n: number) => string }[] = [
  { type: 'URL', content: (n) => `acme-wallet-airdrop-${n}.xyz` },
  { type: 'URL', content: (n) => `https://login-acme-exchange-${n}.com/verify` },
  { type: 'PAGE', content: (n) => `https://sites.google.com/view/acme-claim-${n}` },
  { type: 'TWITTER', content: (n) => `https://x.com/acme_support_${n}` },
  { type: 'TELEGRAM', content: (n) => `https://t.me/acme_giveaway_${n}` },
  { type: 'DISCORD', content: (n) => `https://discord.gg/acme-mint-${n}` },
  { type: 'ADDRESS', content: (n) => `0x${(0xacbe0000 + n).toString(16).padStart(40, 'd')}` },
  { type: 'YOUTUBE', content: (n) => `https://www.youtube.com/@acme-live-${n}` },
];
const SETTLED_THREAT: readonly ThreatStatus[] = ['BLOCKED', 'BLOCKED', 'APPROVED', 'AUTO_APPROVED', 'REJECTED'];
const TAKEDOWN_OUTCOMES: readonly TakedownStatus[] = [
  'COMPLETED',
  'COMPLETED',
  'COMPLETED',
  'IN_PROGRESS',
  'CANCELLED',
];

/**
 * Demo activity of organization `acme` over the 90 days before `today` (UTC): reports, threats
 * (some seen first as PENDING and reviewed hours later), and takedowns that complete days later, with
 * a few records deleted. Record ids do not depend on the date, so a later start moves the same
 * records forward instead of adding new ones. Changes due after today's UTC midnight have not
 * happened yet and are left out, so every version of a record has its own `updatedAt`.
 */
export const demoActivity = (suffixes: PublicSuffixes, today: Date): ActivityChange[] => {
  const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const at = (ms: number) => new Date(ms).toISOString();
  const random = generator(20_260_301);
  const changes: ActivityChange[] = [];
  const brandsOf = (): string[] => {
    const roll = random.below(10);
    if (roll < 4) return ['acme-wallet'];
    if (roll < 7) return ['acme-exchange'];
    if (roll < 8) return [...BRANDS];
    return [];
  };
  let reports = 0;
  let threats = 0;
  let takedowns = 0;

  for (let daysAgo = DAYS; daysAgo >= 1; daysAgo--) {
    const dayStart = midnight - daysAgo * DAY_MS;
    const time = () => dayStart + random.below(24) * HOUR_MS + random.below(60) * 60_000;

    for (let i = random.below(3); i > 0; i--) {
      const createdAt = at(time());
      changes.push({
        organization: ORGANIZATION,
        kind: 'report',
        id: `demo-r-${++reports}`,
        brands: brandsOf(),
        createdAt,
        updatedAt: createdAt,
        deleted: false,
      });
    }

    for (let i = 1 + random.below(3); i > 0; i--) {
      const n = ++threats;
      const shape = random.pick(THREAT_SHAPES);
      const created = time();
      const threat = {
        organization: ORGANIZATION,
        kind: 'threat' as const,
        id: `demo-t-${n}`,
        brands: brandsOf(),
        content: shape.content(n),
        assetType: shape.type,
        watchlisted: random.chance(0.15),
        createdAt: at(created),
        deleted: false,
      };
      if (random.chance(0.4)) changes.push({ ...threat, status: 'PENDING', updatedAt: at(created) });
      const status = random.pick(SETTLED_THREAT);
      const reviewed = created + (1 + random.below(12)) * HOUR_MS;
      changes.push({ ...threat, status, updatedAt: at(reviewed) });
      if (random.chance(0.05)) {
        changes.push({ ...threat, status, deleted: true, updatedAt: at(reviewed + DAY_MS) });
      } else if (status !== 'REJECTED' && random.chance(0.35)) {
        const takedown = {
          organization: ORGANIZATION,
          kind: 'takedown' as const,
          id: `demo-td-${++takedowns}`,
          brands: threat.brands,
          createdAt: at(reviewed + HOUR_MS),
          deleted: false,
        };
        changes.push({ ...takedown, status: 'TODO', updatedAt: takedown.createdAt });
        const settled = reviewed + (1 + random.below(6)) * DAY_MS;
        changes.push({ ...takedown, status: random.pick(TAKEDOWN_OUTCOMES), updatedAt: at(settled) });
      }
    }
  }
  return withBackingReports(
    suffixes,
    changes.filter((change) => Date.parse(change.updatedAt) < midnight),
  );
};
