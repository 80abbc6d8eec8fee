import { type PublicSuffixes, publicSuffixLength } from './public-suffix.ts';

/**
 * Domains whose subdomains belong to different people, missing from the Public Suffix List's
 * private section (which already covers github.io, pages.dev, vercel.app, ...). A
 * verdict never passes between `a.medium.com` and `b.medium.com`, nor up to `medium.com`.
 */
const SUBDOMAIN_HOSTING = new Set([
  '000webhostapp.com',
  '4everland.app',
  'bandcamp.com',
  'beehiiv.com',
  'bigcartel.com',
  'business.site',
  'canva.site',
  'digitaloceanspaces.com',
  'eth.limo',
  'eth.link',
  'firebasestorage.app',
  'freshdesk.com',
  'ghost.io',
  'glide.page',
  'glitch.me',
  'godaddysites.com',
  'googleusercontent.com',
  'hashnode.dev',
  'jimdosite.com',
  'jotform.com',
  'medium.com',
  'mirror.xyz',
  'myftpupload.com',
  'mypinata.cloud',
  'mystrikingly.com',
  'odoo.com',
  'sharepoint.com',
  'site123.me',
  'sitey.me',
  'slack.com',
  'softr.app',
  'squarespace.com',
  'storage.googleapis.com',
  'strikingly.com',
  'substack.com',
  'super.site',
  'systeme.io',
  'teachable.com',
  'tilda.ws',
  'tumblr.com',
  'typeform.com',
  'ucoz.net',
  'webnode.com',
  'webstarts.com',
  'weebly.com',
  'weeblysite.com',
  'wordpress.com',
  'zendesk.com',
  'zohosites.com',
]);

/** The most labels of a curated hosting domain: no suffix of more labels can be one. */
const MOST_HOSTING_LABELS = Math.max(...[...SUBDOMAIN_HOSTING].map((domain) => domain.split('.').length));

const byLength = (domains: Iterable<string>): string[][] => {
  const lists: string[][] = [];
  for (const domain of domains) {
    lists[domain.length] ??= [];
    lists[domain.length]?.push(domain);
  }
  return lists;
};

/** The curated hosting domains by length: a host's suffix is compared in place, with no string made for it. */
const HOSTING_BY_LENGTH: readonly (readonly string[] | undefined)[] = byLength(SUBDOMAIN_HOSTING);

/** Whether the last `length` characters of `host` are a curated hosting domain. */
const endsInHosting = (host: string, length: number): boolean => {
  const domains = HOSTING_BY_LENGTH[length];
  if (domains === undefined) return false;
  for (const domain of domains) if (host.endsWith(domain)) return true;
  return false;
};

/**
 * Length of the hosting boundary at the end of `host`: the longest of its public suffix
 * (ICANN or private) and a curated hosting domain. Equal to `host.length` when the host is
 * itself a boundary, i.e. a hosting platform's own domain or a bare public suffix.
 */
export const boundaryLength = (suffixes: PublicSuffixes, host: string): number => {
  const suffix = Math.min(publicSuffixLength(suffixes, host, true), host.length);
  let boundary = suffix;
  let dot = host.length;
  for (let labels = 1; labels <= MOST_HOSTING_LABELS && dot > 0; labels++) {
    dot = host.lastIndexOf('.', dot - 1);
    const length = host.length - dot - 1;
    if (length > suffix && endsInHosting(host, length)) boundary = length;
  }
  return boundary;
};

/** At most this many parent domains per host (GSB keeps five host keys in all). */
const MAX_PARENTS = 4;

/**
 * Appends the parent domains of `host` that inherit its verdicts, nearest first, down to the
 * registrable domain (one label above the boundary) and never across it.
 */
export const appendParents = (host: string, boundary: number, keys: string[]): number => {
  const registrableDot = host.lastIndexOf('.', host.length - boundary - 2);
  if (registrableDot < 0) return 0;
  let count = 0;
  for (let dot = host.indexOf('.'); dot >= 0 && dot <= registrableDot; dot = host.indexOf('.', dot + 1)) count++;
  let skip = count > MAX_PARENTS ? count - MAX_PARENTS : 0;
  let added = 0;
  for (let dot = host.indexOf('.'); dot >= 0 && dot <= registrableDot; dot = host.indexOf('.', dot + 1)) {
    if (skip > 0) {
      skip--;
      continue;
    }
    keys.push(host.slice(dot + 1));
    added++;
  }
  return added;
};

/** Whether `host` is someone's site under a hosting platform's domain (`acme.github.io`, `acme.vercel.app`). */
export const onHostingPlatform = (suffixes: PublicSuffixes, host: string): boolean => {
  const boundary = boundaryLength(suffixes, host);
  const icann = publicSuffixLength(suffixes, host, false);
  return boundary < host.length && boundary > icann;
};
