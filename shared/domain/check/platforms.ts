/**
 * Platforms that host people under a path: the host alone never decides, the tenant does.
 * A rule reads the path segments (already normalised, original case) and returns the tenant's
 * key, e.g. `x.com/acme` for `https://twitter.com/Acme/status/1`, and how many segments it
 * used. Hosts are matched after `www.` is removed.
 */
type Tenant = {
  key: string;
  /** Path segments that make up the tenant; the rest, if any, make the exact key. */
  used: number;
  /** The next segment names a sub-identity worth its own key (a repository, a track). */
  nested?: boolean;
};

/** `url` parses the checked URL on demand: only rules that read its query need it. */
type Rule = (seg: readonly string[], url: () => URL) => Tenant | undefined;

const CID = /^(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{58,})$/;

/** An IPFS content id in its canonical form (CIDv1 base32 is case-insensitive). */
export const cidOf = (text: string): string | undefined => {
  if (CID.test(text)) return text;
  const lower = text.toLowerCase();
  return lower.charCodeAt(0) === 98 && CID.test(lower) ? lower : undefined;
};

const lower = (text: string) => text.toLowerCase();
const set = (words: string) => new Set(words.split(' '));

type HandleOptions = { reserved?: Set<string>; pattern?: RegExp; nested?: boolean; at?: boolean };

/** `host/<handle>`, case-insensitive; `at` requires (and keeps) a leading `@`. */
const handle =
  (host: string, { reserved, pattern = /^[a-z0-9_.-]+$/, nested = false, at = false }: HandleOptions = {}): Rule =>
  (seg) => {
    const segment = seg[0];
    if (segment === undefined) return undefined;
    const name = lower(segment);
    if (at !== name.startsWith('@')) return undefined;
    if (reserved?.has(name) || !pattern.test(at ? name.slice(1) : name)) return undefined;
    return { key: `${host}/${name}`, used: 1, nested };
  };

/** `host/<prefix>/<id>` (the prefix may have aliases, folded into the first one). */
const under =
  (host: string, prefixes: readonly string[], { caseSensitive = false, nested = false } = {}): Rule =>
  (seg) => {
    const prefix = seg[0];
    const id = seg[1];
    if (prefix === undefined || id === undefined || !prefixes.includes(lower(prefix))) return undefined;
    return { key: `${host}/${prefixes[0]}/${caseSensitive ? id : lower(id)}`, used: 2, nested };
  };

/** `host/<code>` where the code is case-sensitive (invites, short links, ids). */
const code =
  (host: string, pattern = /^[A-Za-z0-9_-]{2,}$/): Rule =>
  (seg) => {
    const segment = seg[0];
    return segment !== undefined && pattern.test(segment) ? { key: `${host}/${segment}`, used: 1 } : undefined;
  };

/** `host/<prefix><value>` from one query parameter of one path (the platform keeps ids there). */
const query =
  (host: string, path: string, name: string, prefix: string): Rule =>
  (seg, url) => {
    if (seg.join('/').toLowerCase() !== path) return undefined;
    const value = url().searchParams.get(name);
    return value ? { key: `${host}/${prefix}${value}`, used: seg.length } : undefined;
  };

/** `host/<label>/<id>` from the segment after `marker` (or the last one), wherever it is. */
const after =
  (host: string, marker: string, label: string, { caseSensitive = false, last = false } = {}): Rule =>
  (seg) => {
    const at = seg.findIndex((s) => lower(s) === marker);
    if (at < 0 || at + 1 >= seg.length) return undefined;
    const id = (last ? seg[seg.length - 1] : seg[at + 1]) as string;
    return { key: `${host}/${label}/${caseSensitive ? id : lower(id)}`, used: seg.length };
  };

/** Applies `rule` to the path after its first segment (a marker such as `invite` or `stories`). */
const skipOne =
  (rule: Rule): Rule =>
  (seg, url) => {
    const tenant = rule(seg.slice(1), url);
    return tenant && { ...tenant, used: tenant.used + 1 };
  };

const first =
  (...rules: Rule[]): Rule =>
  (seg, url) => {
    for (const rule of rules) {
      const tenant = rule(seg, url);
      if (tenant) return tenant;
    }
    return undefined;
  };

const ipfsPath: Rule = (seg) => {
  const kind = seg[0] === undefined ? undefined : lower(seg[0]);
  const cid = kind === 'ipfs' && seg[1] !== undefined ? cidOf(seg[1]) : undefined;
  if (cid) return { key: `ipfs:${cid}`, used: 2 };
  return kind === 'ipns' && seg[1] !== undefined ? { key: `ipns:${lower(seg[1])}`, used: 2 } : undefined;
};

const TWITTER_RESERVED = set(
  'i home search explore intent settings notifications messages hashtag share login logout signup tos privacy compose download jobs about account bookmarks lists communities premium verified-choose',
);
/** X allows 15 characters today; longer legacy or mistyped handles still name one account each. */
const x = handle('x.com', { reserved: TWITTER_RESERVED, pattern: /^[a-z0-9_]{1,50}$/ });

const TELEGRAM_RESERVED = set(
  'share proxy socks addstickers addemoji addtheme setlanguage iv login bg confirmphone invoice boost contact',
);
const telegram: Rule = (seg) => {
  const [a, b] = seg;
  if (a === undefined) return undefined;
  if (a.startsWith('+') && a.length > 1) return { key: `t.me/${a}`, used: 1 };
  const name = lower(a);
  if (name === 'joinchat' && b) return { key: `t.me/+${b}`, used: 2 };
  if (name === 's' && b) return { key: `t.me/${lower(b)}`, used: 2 };
  if (name === 'c' && b) return { key: `t.me/c/${b}`, used: 2 };
  if (TELEGRAM_RESERVED.has(name) || !/^[a-z0-9_]{3,32}$/.test(name)) return undefined;
  return { key: `t.me/${name}`, used: 1 };
};

const youtubeVideo = (id: string | null | undefined): Tenant | undefined =>
  id && /^[A-Za-z0-9_-]{6,}$/.test(id) ? { key: `youtu.be/${id}`, used: 0 } : undefined;
const youtube: Rule = (seg, url) => {
  const a = seg[0] === undefined ? undefined : lower(seg[0]);
  if (a === 'watch') {
    const video = youtubeVideo(url().searchParams.get('v'));
    return video && { ...video, used: seg.length };
  }
  if ((a === 'shorts' || a === 'embed' || a === 'live') && seg[1]) {
    const video = youtubeVideo(seg[1]);
    return video && { ...video, used: 2 };
  }
  return first(
    handle('youtube.com', { at: true }),
    under('youtube.com', ['channel'], { caseSensitive: true }),
    under('youtube.com', ['c']),
    under('youtube.com', ['user']),
  )(seg, url);
};

const FACEBOOK_RESERVED = set(
  'login watch marketplace help settings events gaming privacy policies share sharer sharer.php dialog plugins business ads hashtag search photo.php story.php permalink.php l.php reel reels stories friends messages notifications bookmarks profile.php home.php',
);
const facebook = first(
  query('facebook.com', 'profile.php', 'id', ''),
  under('facebook.com', ['groups']),
  (seg) => (seg[0] === 'pages' && seg[2] !== undefined ? { key: `facebook.com/${seg[2]}`, used: 3 } : undefined),
  handle('facebook.com', { reserved: FACEBOOK_RESERVED }),
);

const GITHUB_RESERVED = set(
  'about features pricing login join settings marketplace explore topics sponsors notifications new search trending collections enterprise security site apps customer-stories readme team events codespaces issues pulls discussions orgs organizations users',
);
const github = (host: string) =>
  first(under(host, ['orgs']), handle(host, { reserved: GITHUB_RESERVED, nested: true }));

const instagramHandle = handle('instagram.com', {
  reserved: set('p reel reels explore accounts direct stories tv about legal developer web'),
  pattern: /^[a-z0-9_.]{1,30}$/,
});
const instagramStories = skipOne(instagramHandle);
const instagram: Rule = (seg, url) =>
  seg[0] !== undefined && lower(seg[0]) === 'stories' ? instagramStories(seg, url) : instagramHandle(seg, url);

const reddit = first(under('reddit.com', ['r']), under('reddit.com', ['u', 'user']));

const discordInvite = code('discord.gg');
const discordInvitePath = skipOne(discordInvite);
const discord: Rule = (seg, url) => {
  const a = seg[0] === undefined ? undefined : lower(seg[0]);
  if (a === 'invite') return discordInvitePath(seg, url);
  return first(under('discord.com', ['users']), under('discord.com', ['channels']))(seg, url);
};

const shortener = (host: string): Rule => code(host);

const gateways = ['ipfs.io', 'dweb.link', 'cloudflare-ipfs.com', 'gateway.pinata.cloud', 'w3s.link', 'nftstorage.link'];

const pypi: Rule = (seg) => {
  const [a, b] = seg;
  if (a === undefined || b === undefined || lower(a) !== 'project') return undefined;
  return { key: `pypi.org/project/${lower(b).replace(/[-_.]+/g, '-')}`, used: 2 };
};

const npm: Rule = (seg) => {
  const [a, b, c] = seg;
  if (a === undefined) return undefined;
  if (a.startsWith('~') && a.length > 1) return { key: `npmjs.com/${lower(a)}`, used: 1 };
  if (lower(a) !== 'package' || b === undefined) return undefined;
  if (b.startsWith('@') && c !== undefined) return { key: `npmjs.com/package/${lower(b)}/${lower(c)}`, used: 3 };
  return { key: `npmjs.com/package/${lower(b)}`, used: 2 };
};

const dockerHub: Rule = (seg) => {
  const [a, b, c] = seg;
  if (a === undefined || b === undefined) return undefined;
  const kind = lower(a);
  if (kind === 'r' && c !== undefined) return { key: `hub.docker.com/r/${lower(b)}/${lower(c)}`, used: 3 };
  if (kind === 'r' || kind === 'u' || kind === '_') return { key: `hub.docker.com/${kind}/${lower(b)}`, used: 2 };
  return undefined;
};

const appleApp: Rule = (seg) => {
  const id = seg.find((s) => /^id\d+$/i.test(s));
  return id ? { key: `apps.apple.com/${lower(id)}`, used: seg.length } : undefined;
};

const chromeExtension =
  (skip: number): Rule =>
  (seg) => {
    const rest = seg.slice(skip);
    if (rest[0] === undefined || lower(rest[0]) !== 'detail') return undefined;
    const id = rest.slice(1).find((s) => /^[a-p]{32}$/i.test(s));
    return id ? { key: `chromewebstore.google.com/detail/${lower(id)}`, used: seg.length } : undefined;
  };

const whatsapp: Rule = (seg, url) => {
  const phone = (seg[0] === undefined ? url().searchParams.get('phone') : seg[0])?.replace(/\D/g, '');
  return phone && phone.length >= 6 ? { key: `wa.me/${phone}`, used: seg.length } : undefined;
};

const sitesGoogle: Rule = (seg) => {
  const [a, b, c] = seg;
  if (a === undefined || b === undefined) return undefined;
  const kind = lower(a);
  if (kind === 'view') return { key: `sites.google.com/view/${lower(b)}`, used: 2 };
  if (kind === 's') return { key: `sites.google.com/s/${b}`, used: 2 };
  if (kind === 'a' && c !== undefined) return { key: `sites.google.com/a/${lower(b)}/${lower(c)}`, used: 3 };
  if (kind.includes('.')) return { key: `sites.google.com/${kind}/${lower(b)}`, used: 2 };
  return undefined;
};

const googleDoc: Rule = (seg) => {
  const kind = seg[0] === undefined ? undefined : lower(seg[0]);
  const d = seg.indexOf('d');
  if (kind === undefined || d < 0) return undefined;
  const published = seg[d + 1] === 'e';
  const id = seg[d + (published ? 2 : 1)];
  if (id === undefined) return undefined;
  return { key: `docs.google.com/${kind}/d/${published ? 'e/' : ''}${id}`, used: d + (published ? 3 : 2) };
};

const googleDrive: Rule = (seg, url) => {
  const id =
    seg[0] === 'file' && seg[1] === 'd'
      ? seg[2]
      : seg[0] === 'drive' && seg[1] === 'folders'
        ? seg[2]
        : url().searchParams.get('id');
  return id
    ? { key: `drive.google.com/${seg[1] === 'folders' ? 'folders' : 'file'}/${id}`, used: Math.min(seg.length, 3) }
    : undefined;
};

const appsScript: Rule = (seg) => {
  const s = seg.indexOf('s');
  const id = s >= 0 && seg.includes('macros') ? seg[s + 1] : undefined;
  return id ? { key: `script.google.com/macros/s/${id}`, used: s + 2 } : undefined;
};

/** The rules by host, made when the first URL is read rather than as the module loads. */
const buildRules = (): Map<string, Rule> => {
  const byHost = new Map<string, Rule>(
    Object.entries({
      'x.com': x,
      'twitter.com': x,
      'mobile.twitter.com': x,
      'mobile.x.com': x,
      't.me': telegram,
      'telegram.me': telegram,
      'telegram.dog': telegram,
      'medium.com': first(
        handle('medium.com', { at: true, nested: true }),
        handle('medium.com', {
          reserved: set(
            'm p tag tags topic topics search plans membership about me new-story creators policy _ jobs-at-medium',
          ),
          nested: true,
        }),
      ),
      'sites.google.com': sitesGoogle,
      'docs.google.com': googleDoc,
      'drive.google.com': googleDrive,
      'script.google.com': appsScript,
      'forms.gle': code('forms.gle'),
      'play.google.com': first(
        query('play.google.com', 'store/apps/details', 'id', 'store/apps/details/'),
        query('play.google.com', 'store/apps/dev', 'id', 'store/apps/dev/'),
        query('play.google.com', 'store/apps/developer', 'id', 'store/apps/dev/'),
      ),
      'chromewebstore.google.com': chromeExtension(0),
      'chrome.google.com': chromeExtension(1),
      'addons.mozilla.org': after('addons.mozilla.org', 'addon', 'addon'),
      'addons.opera.com': after('addons.opera.com', 'details', 'details'),
      'microsoftedge.microsoft.com': after('microsoftedge.microsoft.com', 'detail', 'detail', { last: true }),
      'apps.microsoft.com': after('apps.microsoft.com', 'detail', 'detail', { last: true }),
      'apps.apple.com': appleApp,
      'itunes.apple.com': appleApp,
      'amazon.com': first(after('amazon.com', 'dp', 'dp'), after('amazon.com', 'product', 'dp')),
      'galaxystore.samsung.com': after('galaxystore.samsung.com', 'detail', 'detail', { caseSensitive: true }),
      'appgallery.huawei.com': after('appgallery.huawei.com', 'app', 'app', { caseSensitive: true }),
      'f-droid.org': after('f-droid.org', 'packages', 'packages', { caseSensitive: true }),
      'flathub.org': after('flathub.org', 'apps', 'apps', { caseSensitive: true }),
      'github.com': github('github.com'),
      'gist.github.com': handle('gist.github.com', { nested: true }),
      'gitlab.com': handle('gitlab.com', { reserved: set('explore help users dashboard search'), nested: true }),
      'npmjs.com': npm,
      'pypi.org': pypi,
      'crates.io': under('crates.io', ['crates']),
      'hub.docker.com': dockerHub,
      'facebook.com': facebook,
      'fb.com': facebook,
      'm.facebook.com': facebook,
      'web.facebook.com': facebook,
      'mbasic.facebook.com': facebook,
      'instagram.com': instagram,
      'threads.net': handle('threads.net', { at: true }),
      'threads.com': handle('threads.net', { at: true }),
      'tiktok.com': handle('tiktok.com', { at: true }),
      'vm.tiktok.com': code('vm.tiktok.com'),
      'youtube.com': youtube,
      'm.youtube.com': youtube,
      'youtu.be': (seg) => youtubeVideo(seg[0]) && { key: `youtu.be/${seg[0]}`, used: 1 },
      'reddit.com': reddit,
      'old.reddit.com': reddit,
      'new.reddit.com': reddit,
      'linkedin.com': first(
        under('linkedin.com', ['in']),
        under('linkedin.com', ['company']),
        under('linkedin.com', ['school']),
        under('linkedin.com', ['showcase']),
      ),
      'discord.gg': discordInvite,
      'discord.com': discord,
      'discordapp.com': discord,
      'opensea.io': first(
        under('opensea.io', ['collection']),
        handle('opensea.io', {
          reserved: set('assets account rankings explore learn activity drops stats solana ethereum'),
        }),
      ),
      'rarible.com': first(under('rarible.com', ['collection']), under('rarible.com', ['user'])),
      'warpcast.com': handle('warpcast.com', { reserved: set('~') }),
      'farcaster.xyz': handle('warpcast.com', { reserved: set('~') }),
      'bsky.app': under('bsky.app', ['profile']),
      'primal.net': under('primal.net', ['p']),
      'snapchat.com': first(under('snapchat.com', ['add']), handle('snapchat.com', { at: true })),
      'pinterest.com': handle('pinterest.com', { reserved: set('pin search ideas today business') }),
      'flickr.com': under('flickr.com', ['photos', 'people']),
      'galxe.com': handle('galxe.com', { reserved: set('quest explore campaign') }),
      'velog.io': handle('velog.io', { at: true }),
      'patreon.com': first(
        under('patreon.com', ['c']),
        handle('patreon.com', { reserved: set('posts login search home') }),
      ),
      'quora.com': under('quora.com', ['profile']),
      'debank.com': under('debank.com', ['profile']),
      'zapper.xyz': under('zapper.xyz', ['account']),
      'hackmd.io': first(handle('hackmd.io', { at: true }), code('hackmd.io')),
      'tawk.to': under('tawk.to', ['chat'], { caseSensitive: true }),
      'form.jotform.com': code('form.jotform.com', /^\d+$/),
      'wa.me': whatsapp,
      'api.whatsapp.com': whatsapp,
      'chat.whatsapp.com': code('chat.whatsapp.com'),
      'calendly.com': handle('calendly.com'),
      'twitch.tv': handle('twitch.tv', { reserved: set('directory videos p settings downloads search') }),
      'behance.net': handle('behance.net', { reserved: set('gallery search') }),
      'deviantart.com': handle('deviantart.com'),
      '500px.com': under('500px.com', ['p']),
      'vimeo.com': handle('vimeo.com', { reserved: set('channels search watch') }),
      'dailymotion.com': first(under('dailymotion.com', ['video'], { caseSensitive: true }), handle('dailymotion.com')),
      'soundcloud.com': handle('soundcloud.com', { nested: true }),
      'archive.org': under('archive.org', ['details'], { caseSensitive: true }),
      'issuu.com': handle('issuu.com'),
      'etsy.com': first(under('etsy.com', ['shop']), under('etsy.com', ['listing'])),
      'zazzle.com': under('zazzle.com', ['store']),
      'vocal.media': under('vocal.media', ['authors']),
      'zora.co': handle('zora.co', { at: true }),
      'linktr.ee': handle('linktr.ee'),
      'substack.com': handle('substack.com', { at: true }),
      'space.bilibili.com': code('space.bilibili.com', /^\d+$/),
      'xiaohongshu.com': after('xiaohongshu.com', 'profile', 'user/profile', { caseSensitive: true }),
      'join.slack.com': under('join.slack.com', ['t']),
      'diamondapp.com': under('diamondapp.com', ['u']),
      'vidlii.com': under('vidlii.com', ['user']),
      'codepen.io': handle('codepen.io', { nested: true }),
      'cdpn.io': handle('codepen.io', { nested: true }),
      'replit.com': handle('replit.com', { at: true, nested: true }),
      'form.typeform.com': under('form.typeform.com', ['to'], { caseSensitive: true }),
      'bit.ly': shortener('bit.ly'),
      'tinyurl.com': shortener('tinyurl.com'),
      't.co': shortener('t.co'),
      'goo.gl': shortener('goo.gl'),
      'rb.gy': shortener('rb.gy'),
      'cutt.ly': shortener('cutt.ly'),
      'is.gd': shortener('is.gd'),
      'ow.ly': shortener('ow.ly'),
      'shorturl.at': shortener('shorturl.at'),
    }),
  );
  for (const gateway of gateways) byHost.set(gateway, ipfsPath);
  return byHost;
};
let rules: Map<string, Rule> | undefined;

/** The rule of a path-hosting platform, by host without `www.`. */
export const platformRule = (host: string): Rule | undefined => {
  rules ??= buildRules();
  return rules.get(host);
};
