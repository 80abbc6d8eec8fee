import { v5 as uuidv5 } from 'uuid';
import type { AssetType } from '../allowlist/asset-types.ts';

/** The namespace of this service's STIX ids (UUIDv5): fixed, so an id is the same on every read and every deployment. */
export const STIX_NAMESPACE = 'a3c1f0f2-5b8e-4d6a-9c41-7e2b9d0f6a15';
/** The core TLP:WHITE marking definition of STIX 2.1 (OpenCTI shows it as TLP:CLEAR). */
export const TLP_WHITE = 'marking-definition--613f2e26-407d-48c7-9eca-b8e91df99dc9';
export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';
export const STIX_MEDIA_TYPE = 'application/stix+json;version=2.1';

/** The two collections the service maintains per organization, and the one it accepts objects in. */
export const MAINTAINED = ['blocked', 'allowed'] as const;
export type Maintained = (typeof MAINTAINED)[number];
export const COLLECTIONS = [...MAINTAINED, 'submissions'] as const;
export type CollectionName = (typeof COLLECTIONS)[number];

/**
 * One version of an indicator as stored: what entered or left a collection, when (`dateAdded`,
 * microseconds), and the times STIX keeps (`created` stays the same across an object's versions).
 */
export type IndicatorVersion = {
  objectId: string;
  collection: Maintained;
  dateAdded: string;
  created: string;
  modified: string;
  revoked: boolean;
  checkKey: string;
  assetType: AssetType;
};

/** An instant as TAXII 2.1 writes it: with microseconds (`…SS.ssssssZ`). */
export const micros = (iso: string): string => {
  const exact = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z$/.exec(iso);
  if (exact) return `${exact[1]}.${(exact[2] ?? '').padEnd(6, '0')}Z`;
  return `${new Date(iso).toISOString().slice(0, 23)}000Z`;
};

/** Now with microseconds, the sub-millisecond digits from the high-resolution clock. */
export const nowMicros = (now: number = Date.now()): string =>
  `${new Date(now).toISOString().slice(0, 23)}${String(Math.floor((performance.now() % 1) * 1000)).padStart(3, '0')}Z`;

/**
 * `indicator--<UUIDv5>` of one stay of an entry in a collection: organization, collection, the
 * entry's canonical content and its generation (what identifies this stay: an entry that leaves
 * and comes back is a new generation, so a revoked id is never reused).
 */
export const indicatorIdOf = (orgId: string, collection: Maintained, checkKey: string, generation: string): string =>
  `indicator--${uuidv5([orgId, collection, checkKey, generation].join('\n'), STIX_NAMESPACE)}`;

export const identityIdOf = (orgId: string): string => `identity--${uuidv5(`${orgId}\nidentity`, STIX_NAMESPACE)}`;

const EVM = /^0x[0-9a-f]{40}$/;
const HOST = /^[a-z0-9.-]+$/;
/** A STIX pattern string literal: `'` and `\` escaped. */
const literal = (text: string): string => `'${text.replace(/[\\']/g, (char) => `\\${char}`)}'`;

/**
 * The STIX pattern of a canonical entry: a bare domain, a URL with a path (social handles are the
 * URL of their profile), an email address, or a wallet address (OpenCTI's custom observable
 * `cryptocurrency-wallet`, not a core STIX type). Undefined for content no pattern says.
 */
export const patternOf = (checkKey: string, type: AssetType): string | undefined => {
  if (checkKey.startsWith('mailto:')) return `[email-addr:value = ${literal(checkKey.slice('mailto:'.length))}]`;
  if (type === 'ADDRESS' || EVM.test(checkKey)) return `[cryptocurrency-wallet:value = ${literal(checkKey)}]`;
  if (/^[a-z][a-z0-9+.-]*:/.test(checkKey)) return undefined;
  if (!checkKey.includes('/') && HOST.test(checkKey)) return `[domain-name:value = ${literal(checkKey)}]`;
  return `[url:value = ${literal(`https://${checkKey}`)}]`;
};

const PATTERN = /^\[(domain-name|url|email-addr|cryptocurrency-wallet):value = '((?:[^'\\]|\\['\\])*)'\]$/;
/** The content a supported pattern names, unescaped; undefined for any other pattern. */
export const contentOfPattern = (pattern: string): string | undefined => {
  const match = PATTERN.exec(pattern.trim());
  return match ? (match[2] as string).replace(/\\(['\\])/g, '$1') : undefined;
};

export type StixIdentity = {
  type: 'identity';
  spec_version: '2.1';
  id: string;
  created: string;
  modified: string;
  name: string;
  identity_class: 'organization';
  object_marking_refs: string[];
};

/** The organization as the author of its indicators; its times are fixed, so every read serves one version. */
export const identityOf = (orgId: string, name: string): StixIdentity => ({
  type: 'identity',
  spec_version: '2.1',
  id: identityIdOf(orgId),
  created: '2026-01-01T00:00:00.000Z',
  modified: '2026-01-01T00:00:00.000Z',
  name,
  identity_class: 'organization',
  object_marking_refs: [TLP_WHITE],
});

export type StixIndicator = {
  type: 'indicator';
  spec_version: '2.1';
  id: string;
  created_by_ref: string;
  created: string;
  modified: string;
  name: string;
  indicator_types: ['malicious-activity'] | ['benign'];
  pattern: string;
  pattern_type: 'stix';
  valid_from: string;
  object_marking_refs: string[];
  revoked?: true;
};

/** A stored version as the STIX indicator it is (undefined when no pattern says its content). */
export const indicatorOf = (orgId: string, version: IndicatorVersion): StixIndicator | undefined => {
  const pattern = patternOf(version.checkKey, version.assetType);
  if (pattern === undefined) return undefined;
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: version.objectId,
    created_by_ref: identityIdOf(orgId),
    created: version.created,
    modified: version.modified,
    name: version.checkKey,
    indicator_types: version.collection === 'blocked' ? ['malicious-activity'] : ['benign'],
    pattern,
    pattern_type: 'stix',
    valid_from: version.created,
    object_marking_refs: [TLP_WHITE],
    ...(version.revoked ? { revoked: true as const } : {}),
  };
};
