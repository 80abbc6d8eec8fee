import { domainToUnicode } from 'node:url';
import { distance } from 'fastest-levenshtein';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import type { CheckStatus, PublicSuffixes, SourceName } from '../check/index.ts';
import { canonicalize, entryKeyOf, onHostingPlatform, publicSuffixLength } from '../check/index.ts';
import { skeletonOf } from './skeleton.ts';

export const THREAT_VERDICTS = ['MALICIOUS', 'SUSPICIOUS', 'BENIGN', 'UNKNOWN'] as const;
export type ThreatVerdict = (typeof THREAT_VERDICTS)[number];
export type Signal = { name: string; weight: number; detail: string };
export type EngineResult = { verdict: ThreatVerdict; score: number; signals: Signal[] };

/** What an organization protects: names to find lookalikes of, and the domains that are its own. */
export type BrandProfile = {
  /** Lower-case terms (brand names, slugs, tickers), at least 3 characters each. */
  terms: readonly string[];
  /** Registrable domains (and hosts) that are the organization's own: never lookalikes. */
  domains: readonly string[];
};

/** What the service already knows about the content, read by the caller (the engine does no I/O). */
export type KnownVerdict = { status: CheckStatus; source: SourceName };

const SCORE = { malicious: 70, suspicious: 40 } as const;

/** Words phishing pages put beside a brand name. */
const SUSPICIOUS_KEYWORDS = [
  'airdrop',
  'claim',
  'wallet-connect',
  'walletconnect',
  'connect-wallet',
  'connectwallet',
  'giveaway',
  'bonus',
  'reward',
  'verify',
  'validate',
  'recovery',
  'restore',
  'seed',
  'unlock',
  'rectify',
  'migrate',
  'migration',
  'support',
  'helpdesk',
  'secure',
  'login',
  'signin',
  'sync',
  'dapp',
  'mint',
  'free',
  'bridge',
  'refund',
  'whitelist',
  'presale',
] as const;
/** Top-level domains that cost next to nothing and carry most of the phishing seen in wallets' lists. */
const CHEAP_TLDS = new Set([
  'xyz',
  'top',
  'click',
  'claims',
  'help',
  'live',
  'online',
  'site',
  'app',
  'icu',
  'buzz',
  'cfd',
  'sbs',
  'rest',
  'shop',
  'info',
  'pw',
  'tk',
  'ml',
  'ga',
  'cf',
  'gq',
  'zip',
  'link',
  'cc',
  'vip',
  'lol',
  'fun',
  'website',
  'space',
]);

const WEIGHT = {
  serviceBlocked: 100,
  externalBlocked: 90,
  homoglyph: 70,
  editDistance1: 60,
  editDistance2: 50,
  tldSwap: 55,
  brandTerm: 45,
  addedKeyword: 25,
  mixedScript: 35,
  punycode: 15,
  keyword: 10,
  cheapTld: 10,
  hosting: 10,
} as const;
const MAX_KEYWORD_WEIGHT = 30;
/** Shorter words are a few edits from too many names. */
const MIN_EDITED = 4;

const SCRIPTS = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
] as const;
const MARKS = /\p{M}/gu;
const SEPARATORS = /[-_.]/g;

const compact = (text: string): string => text.replace(SEPARATORS, '');
/** Two skeletons: UTS #39's, and one without combining marks (so `ácme` meets `acme` too). */
const skeletons = (text: string): [string, string] => {
  const skeleton = skeletonOf(text);
  return [skeleton, skeleton.replace(MARKS, '')];
};

/** Levenshtein distance, with one swap of neighbouring characters counted as one edit. */
const editDistance = (a: string, b: string): number => {
  const plain = distance(a, b);
  if (plain !== 2 || a.length !== b.length) return plain;
  const differ = [...a].flatMap((char, i) => (char === b[i] ? [] : [i]));
  const [i, j] = differ;
  return differ.length === 2 && j === (i as number) + 1 && a[i as number] === b[j] && a[j] === b[i as number] ? 1 : 2;
};

const scriptsOf = (label: string): string[] =>
  SCRIPTS.filter(([, pattern]) => pattern.test(label)).map(([name]) => name);

/** The parts of content the engine reads: a host split at its public suffix, and the words of an account or page. */
type Reading = {
  type: AssetType;
  host?: string;
  /** The host's labels before its public suffix, in Unicode. */
  name?: string;
  /** The public suffix, in Unicode. */
  suffix?: string;
  /** An account's handle or a page's path: where a lookalike sits on a platform. */
  words?: string;
  /** Everything matched against keywords, lower case. */
  text: string;
};

const read = (suffixes: PublicSuffixes, content: string): Reading | undefined => {
  const type = detectAssetType(suffixes, content);
  if (type === undefined) return undefined;
  const key = entryKeyOf(suffixes, content, type);
  // A platform's or a host's own root (`github.com`): nothing a lookalike hides in.
  if (key === undefined) return { type, text: content.trim().toLowerCase() };
  const target = canonicalize(suffixes, content, type);
  const slash = key.indexOf('/');
  const keyHost = slash < 0 ? key : key.slice(0, slash);
  const path = slash < 0 ? '' : key.slice(slash + 1).toLowerCase();
  if (type === 'URL' && target.kind === 'keys' && !keyHost.includes(':')) {
    const host = target.domain ?? keyHost;
    const unicode = domainToUnicode(host) || host;
    const suffixLength = publicSuffixLength(suffixes, unicode, true);
    const name = unicode.slice(0, Math.max(0, unicode.length - suffixLength - 1));
    return { type, host, name, suffix: unicode.slice(unicode.length - suffixLength), text: `${unicode}/${path}` };
  }
  if (type === 'ADDRESS' || type === 'EMAIL' || type === 'PHONE_NUMBER') return { type, text: key.toLowerCase() };
  return { type, host: keyHost, words: path, text: key.toLowerCase() };
};

const isOwn = (host: string, domains: readonly string[]): boolean =>
  domains.some((domain) => host === domain || host.endsWith(`.${domain}`));

/** The signals of lookalikes of the profile's terms and domains in one name (a host's labels, or a handle). */
const lookalikeSignals = (
  suffixes: PublicSuffixes,
  name: string,
  suffix: string | undefined,
  profile: BrandProfile,
): Signal[] => {
  const signals: Signal[] = [];
  const labels = name.split('.');
  const main = labels[labels.length - 1] ?? name;
  const whole = compact(name);
  const [skeleton, bare] = skeletons(whole);
  const tokens = [...new Set([compact(main), whole, ...name.split(/[-_.]/).filter((token) => token.length >= 3)])];
  const ownLabels = profile.domains.map((domain) => {
    const suffixLength = publicSuffixLength(suffixes, domain, true);
    return {
      label: compact(domain.slice(0, Math.max(0, domain.length - suffixLength - 1))),
      suffix: domain.slice(domain.length - suffixLength),
    };
  });
  const targets = [...new Set([...profile.terms.map(compact), ...ownLabels.map((own) => own.label)])].filter(
    (target) => target.length >= 3,
  );

  const ascii = /^[\x20-\x7e]*$/.test(whole);
  for (const target of targets) {
    if (whole.includes(target)) continue;
    const [targetSkeleton, targetBare] = skeletons(target);
    // Letters with no prototype in the confusables data (Cyrillic м for m) still leave a near skeleton.
    const near =
      !ascii && Math.min(editDistance(bare, target), editDistance(bare, targetBare)) <= (target.length >= 6 ? 2 : 1);
    if (skeleton.includes(targetSkeleton) || bare.includes(targetBare) || near) {
      signals.push({ name: 'homoglyph', weight: WEIGHT.homoglyph, detail: `${name} looks like ${target}` });
      return signals;
    }
  }
  const contained = targets.find((target) => whole.includes(target));
  if (contained !== undefined) {
    const own = ownLabels.find((label) => label.label === whole);
    if (own && suffix !== undefined && own.suffix !== suffix) {
      signals.push({
        name: 'tld-swap',
        weight: WEIGHT.tldSwap,
        detail: `${name}.${suffix} swaps the ending of ${own.label}.${own.suffix}`,
      });
    } else {
      const how = whole === contained ? 'is' : 'contains';
      signals.push({ name: 'brand-term', weight: WEIGHT.brandTerm, detail: `${how} the brand term ${contained}` });
    }
    return signals;
  }
  let best: { target: string; token: string; edits: number } | undefined;
  for (const target of targets) {
    for (const token of tokens) {
      const allowed = target.length >= 6 ? 2 : 1;
      if (token.length < MIN_EDITED || Math.abs(token.length - target.length) > allowed) continue;
      const edits = editDistance(token, target);
      if (edits >= 1 && edits <= allowed && (best === undefined || edits < best.edits)) best = { target, token, edits };
    }
  }
  if (best !== undefined) {
    signals.push({
      name: 'edit-distance',
      weight: best.edits === 1 ? WEIGHT.editDistance1 : WEIGHT.editDistance2,
      detail: `${best.token} is ${best.edits} edit${best.edits === 1 ? '' : 's'} from ${best.target}`,
    });
  }
  return signals;
};

const keywordSignals = (text: string, lookalike: boolean): Signal[] => {
  const found = SUSPICIOUS_KEYWORDS.filter((keyword) => text.includes(keyword));
  if (found.length === 0) return [];
  const signals: Signal[] = [
    {
      name: 'suspicious-keyword',
      weight: Math.min(MAX_KEYWORD_WEIGHT, found.length * WEIGHT.keyword),
      detail: found.join(', '),
    },
  ];
  if (lookalike) {
    signals.push({ name: 'added-keyword', weight: WEIGHT.addedKeyword, detail: `brand lookalike with ${found[0]}` });
  }
  return signals;
};

const hostSignals = (suffixes: PublicSuffixes, reading: Reading): Signal[] => {
  const signals: Signal[] = [];
  const { host, name, suffix } = reading;
  if (host === undefined) return signals;
  if (host.split('.').some((label) => label.startsWith('xn--'))) {
    signals.push({ name: 'punycode-host', weight: WEIGHT.punycode, detail: host });
  }
  const mixed = (name ?? '').split('.').find((label) => scriptsOf(label).length > 1);
  if (mixed !== undefined) {
    signals.push({
      name: 'mixed-script',
      weight: WEIGHT.mixedScript,
      detail: `${mixed} mixes ${scriptsOf(mixed).join(' and ')}`,
    });
  }
  if (suffix !== undefined && CHEAP_TLDS.has(suffix)) {
    signals.push({ name: 'cheap-tld', weight: WEIGHT.cheapTld, detail: `.${suffix}` });
  }
  if (reading.type === 'PAGE' || onHostingPlatform(suffixes, host)) {
    signals.push({ name: 'hosting-platform', weight: WEIGHT.hosting, detail: `a tenant of ${host}` });
  }
  return signals;
};

const verdictOf = (score: number): ThreatVerdict =>
  score >= SCORE.malicious ? 'MALICIOUS' : score >= SCORE.suspicious ? 'SUSPICIOUS' : 'BENIGN';

/**
 * Scores content from what the service holds, with no I/O: the service's and the external lists'
 * verdict (`known`), lookalikes of the organization's brand terms and own domains (UTS #39
 * skeletons, edit distance, added keywords, swapped endings), mixed-script and punycode hosts,
 * suspicious keywords, cheap endings and hosting-platform tenancy. Each signal is named with its
 * weight; the score is their sum within 0–100: 70 and above MALICIOUS, 40 and above SUSPICIOUS,
 * else BENIGN. Content that is not an asset is UNKNOWN; content allowlisted or the
 * organization's own is BENIGN whatever else it shows.
 */
export const evaluateThreat = (
  suffixes: PublicSuffixes,
  content: string,
  profile: BrandProfile,
  known?: KnownVerdict,
): EngineResult => {
  const reading = read(suffixes, content);
  if (reading === undefined) {
    // A hosting platform's own domain (`github.com`) is not a lookalike of anyone.
    const platform = canonicalize(suffixes, content).kind === 'hosting-domain';
    return { verdict: platform ? 'BENIGN' : 'UNKNOWN', score: 0, signals: [] };
  }
  if (known?.status === 'ALLOWED') {
    return {
      verdict: 'BENIGN',
      score: 0,
      signals: [{ name: 'allowlisted', weight: -100, detail: `allowlisted (${known.source})` }],
    };
  }
  if (reading.host !== undefined && reading.name !== undefined && isOwn(reading.host, profile.domains)) {
    return {
      verdict: 'BENIGN',
      score: 0,
      signals: [{ name: 'own-domain', weight: -100, detail: `${reading.host} is the organization's own` }],
    };
  }
  const signals: Signal[] = [];
  if (known?.status === 'BLOCKED') {
    signals.push(
      known.source === 'service'
        ? { name: 'service-blocked', weight: WEIGHT.serviceBlocked, detail: 'a threat the service blocks' }
        : { name: 'external-list-blocked', weight: WEIGHT.externalBlocked, detail: `listed by ${known.source}` },
    );
  }
  const lookalikeName = reading.name ?? reading.words;
  const lookalikes =
    lookalikeName === undefined || lookalikeName === ''
      ? []
      : lookalikeSignals(suffixes, lookalikeName, reading.suffix, profile);
  signals.push(
    ...lookalikes,
    ...keywordSignals(reading.text, lookalikes.length > 0),
    ...hostSignals(suffixes, reading),
  );
  const score = Math.max(
    0,
    Math.min(
      100,
      signals.reduce((sum, signal) => sum + signal.weight, 0),
    ),
  );
  return { verdict: verdictOf(score), score, signals };
};

const MIN_TERM = 3;

/**
 * The profile of an organization: its brands' `includedTerms` less their `excludedTerms` where
 * brands have them, else their names and slugs, with the organization's slug and `tickers`; and
 * the registrable domains it allowlists.
 */
export const brandProfile = (
  organization: string,
  brands: readonly {
    slug: string;
    name: string;
    includedTerms?: readonly string[];
    excludedTerms?: readonly string[];
  }[],
  ownDomains: readonly string[],
  tickers: readonly string[] = [],
): BrandProfile => {
  const terms = new Set<string>([organization.toLowerCase()]);
  for (const brand of brands) {
    const excluded = new Set((brand.excludedTerms ?? []).map((term) => term.toLowerCase()));
    const included = brand.includedTerms?.length ? brand.includedTerms : [brand.name, brand.slug];
    for (const term of included) {
      const lower = term.toLowerCase().replace(/\s+/g, '-');
      if (!excluded.has(lower) && !excluded.has(term.toLowerCase())) terms.add(lower);
    }
  }
  for (const ticker of tickers) terms.add(ticker.toLowerCase());
  return {
    terms: [...terms].filter((term) => compact(term).length >= MIN_TERM),
    domains: [...new Set(ownDomains.map((domain) => domain.toLowerCase()))],
  };
};
