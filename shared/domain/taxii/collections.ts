import { BadRequestError, NotFoundError } from '../../errors.ts';
import type { CursorCodec } from '../core/cursor.ts';
import {
  COLLECTIONS,
  type CollectionName,
  type IndicatorVersion,
  identityOf,
  indicatorOf,
  type Maintained,
  micros,
  STIX_MEDIA_TYPE,
  type StixIdentity,
  type StixIndicator,
} from './stix.ts';

export type CollectionIds = Record<CollectionName, string>;
export type StoredStatus = Record<string, unknown> & { id: string };

/** Where an organization's TAXII collections are kept; every read is bounded by the page asked for. */
export interface TaxiiStore {
  /** The organization's collection ids (random UUIDv4, given with the organization); undefined before it has them. */
  collectionIds(orgId: string): Promise<CollectionIds | undefined>;
  /** Up to `limit` versions added after `after` (a stored position, exclusive), oldest first, and whether more follow. */
  versions(
    orgId: string,
    collection: Maintained,
    after: string | undefined,
    limit: number,
  ): Promise<{ versions: IndicatorVersion[]; last?: string; more: boolean }>;
  /** The position a `date_added` bound starts after. */
  positionAfter(dateAdded: string): string;
  /** Every version of one object, oldest first (at most two: added, then revoked). */
  objectVersions(orgId: string, collection: Maintained, objectId: string): Promise<IndicatorVersion[]>;
  /** Which of these objects have been revoked since (their last version is a later one). */
  revoked(orgId: string, collection: Maintained, objectIds: readonly string[]): Promise<Set<string>>;
  putStatus(orgId: string, status: StoredStatus): Promise<void>;
  findStatus(orgId: string, id: string): Promise<StoredStatus | undefined>;
  /** Which `id\nmodified` pairs the organization's submissions already accepted. */
  submitted(orgId: string, pairs: readonly { id: string; modified: string }[]): Promise<Set<string>>;
  markSubmitted(orgId: string, pairs: readonly { id: string; modified: string }[]): Promise<void>;
}

export type Caller = { orgId: string; organizationName: string; canWrite: boolean };

const TITLES: Record<CollectionName, string> = {
  blocked: 'blocked',
  allowed: 'allowed',
  submissions: 'submissions',
};
const DESCRIPTIONS: Record<CollectionName, string> = {
  blocked:
    "Indicators (malicious-activity) of the organization's BLOCKED, APPROVED and AUTO_APPROVED threats. Wallet addresses use OpenCTI's custom observable cryptocurrency-wallet, not a core STIX type.",
  allowed:
    "Indicators (benign) of the organization's allowlist. Wallet addresses use OpenCTI's custom observable cryptocurrency-wallet, not a core STIX type.",
  submissions:
    'Add indicators here: each one with a supported pattern becomes a proposal in one report of the organization, for review.',
};

export const collectionResource = (name: CollectionName, id: string, caller: Caller) => ({
  id,
  title: TITLES[name],
  description: DESCRIPTIONS[name],
  can_read: name !== 'submissions',
  can_write: name === 'submissions' && caller.canWrite,
  media_types: [STIX_MEDIA_TYPE],
});

const NO_COLLECTIONS = 'This organization has no TAXII collections yet: the operator gives them with the organization';
const idsOf = async (store: TaxiiStore, orgId: string): Promise<CollectionIds> => {
  const ids = await store.collectionIds(orgId);
  if (ids === undefined) throw new NotFoundError(NO_COLLECTIONS);
  return ids;
};

export const listCollections = async (store: TaxiiStore, caller: Caller) => {
  const ids = await idsOf(store, caller.orgId);
  return { collections: COLLECTIONS.map((name) => collectionResource(name, ids[name], caller)) };
};

/** The collection `id` names among the caller's; another organization's, or none, is 404. */
export const findCollection = async (store: TaxiiStore, orgId: string, id: string): Promise<CollectionName> => {
  const ids = await idsOf(store, orgId);
  const name = COLLECTIONS.find((candidate) => ids[candidate] === id);
  if (name === undefined) throw new NotFoundError('Collection not found');
  return name;
};

export const readable = (name: CollectionName): Maintained => {
  if (name === 'submissions') throw new NotFoundError('The submissions collection holds no objects to read');
  return name;
};

export type ObjectQuery = {
  addedAfter?: string;
  limit: number;
  next?: string;
  types?: string[];
  ids?: string[];
  version: string;
  specVersions?: string[];
};

/** The identity is dated before anything the service adds, so it opens the first page. */
const IDENTITY_ADDED = '2026-01-01T00:00:00.000000Z';

type Served = { object: StixIndicator | StixIdentity; dateAdded: string; version: string };

const versionMatches = (wanted: string, served: Served, isLast: boolean): boolean =>
  wanted
    .split(',')
    .some((one) =>
      one === 'all'
        ? true
        : one === 'last'
          ? isLast
          : one === 'first'
            ? !('revoked' in served.object)
            : micros(one) === micros(served.version),
    );

const matches = (query: ObjectQuery, served: Served, isLast: boolean): boolean =>
  (query.types === undefined || query.types.includes(served.object.type)) &&
  (query.ids === undefined || query.ids.includes(served.object.id)) &&
  (query.specVersions === undefined || query.specVersions.includes('2.1')) &&
  versionMatches(query.version, served, isLast);

const servedOf = (orgId: string, version: IndicatorVersion): Served | undefined => {
  const object = indicatorOf(orgId, version);
  return object === undefined ? undefined : { object, dateAdded: version.dateAdded, version: version.modified };
};

export type Page = { more: boolean; next?: string; served: Served[] };

/**
 * One page of a maintained collection, oldest added first: at most `limit` stored versions read
 * (and, for `match[version]=last`, one batch read of those objects), whatever the collection's size.
 * `next` is sealed to the key, the collection and the filters.
 */
export const readPage = async (
  deps: { store: TaxiiStore; cursors: CursorCodec },
  caller: Caller & { keyHash: string },
  collection: Maintained,
  query: ObjectQuery,
): Promise<Page> => {
  const { store, cursors } = deps;
  // `added_after` may come again with `next` or not: where to go on is the position `next` seals.
  const { next: token, limit, addedAfter: _addedAfter, ...filters } = query;
  const binding = { orgId: caller.orgId, filter: JSON.stringify({ key: caller.keyHash, collection, filters }) };
  const opened = token === undefined ? undefined : await cursors.open(binding, token).catch(badNext);
  const start = opened ?? (query.addedAfter === undefined ? undefined : store.positionAfter(micros(query.addedAfter)));
  const withIdentity =
    opened === undefined && (query.addedAfter === undefined || micros(query.addedAfter) < IDENTITY_ADDED);
  const identity: Served = {
    object: identityOf(caller.orgId, caller.organizationName),
    dateAdded: IDENTITY_ADDED,
    version: identityOf(caller.orgId, caller.organizationName).modified,
  };
  const room = withIdentity ? limit - 1 : limit;
  const page = room > 0 ? await store.versions(caller.orgId, collection, start, room) : { versions: [], more: true };
  const current = page.versions.filter((version) => !version.revoked).map((version) => version.objectId);
  const superseded =
    query.version.split(',').includes('last') && current.length > 0
      ? await store.revoked(caller.orgId, collection, current)
      : new Set<string>();
  const served = [
    ...(withIdentity && matches(query, identity, true) ? [identity] : []),
    ...page.versions.flatMap((version) => {
      const one = servedOf(caller.orgId, version);
      const isLast = version.revoked || !superseded.has(version.objectId);
      return one !== undefined && matches(query, one, isLast) ? [one] : [];
    }),
  ];
  if (!page.more) return { more: false, served };
  // Nothing read yet (a page that held only the identity): go on from before the first version.
  const position = page.last ?? start ?? 'V#';
  return { more: true, next: await cursors.seal(binding, position), served };
};

const badNext = (): never => {
  throw new BadRequestError('Invalid next: it does not belong to this key, collection and filters');
};

/** Every version of one object of a collection (the identity: its one version); 404 when it has none. */
export const objectVersions = async (
  store: TaxiiStore,
  caller: Caller,
  collection: Maintained,
  objectId: string,
): Promise<Served[]> => {
  const identity = identityOf(caller.orgId, caller.organizationName);
  if (objectId === identity.id) return [{ object: identity, dateAdded: IDENTITY_ADDED, version: identity.modified }];
  const versions = await store.objectVersions(caller.orgId, collection, objectId);
  const served = versions.flatMap((version) => servedOf(caller.orgId, version) ?? []);
  if (served.length === 0) throw new NotFoundError('Object not found');
  return served;
};

/** The envelope of objects (TAXII omits `objects` when empty, and `next` when nothing more follows). */
export const envelopeOf = (page: Page) => ({
  more: page.more,
  ...(page.next === undefined ? {} : { next: page.next }),
  ...(page.served.length === 0 ? {} : { objects: page.served.map((one) => one.object) }),
});

export const manifestOf = (page: Page) => ({
  more: page.more,
  ...(page.next === undefined ? {} : { next: page.next }),
  ...(page.served.length === 0
    ? {}
    : {
        objects: page.served.map((one) => ({
          id: one.object.id,
          date_added: one.dateAdded,
          version: one.version,
          media_type: STIX_MEDIA_TYPE,
        })),
      }),
});

/** `X-TAXII-Date-Added-First` / `-Last` of a page with objects. */
export const dateAddedHeaders = (page: Page): Record<string, string> => {
  const first = page.served[0];
  const last = page.served.at(-1);
  return first === undefined || last === undefined
    ? {}
    : { 'X-TAXII-Date-Added-First': first.dateAdded, 'X-TAXII-Date-Added-Last': last.dateAdded };
};

/** Who asks, as the collections see it: the organization (its name authors the indicators) and whether the key may add. */
export const callerOf = async (
  directory: { findOrganization(slug: string): Promise<{ name: string } | undefined> },
  orgId: string,
  scopes: readonly string[],
): Promise<Caller> => {
  const organization = await directory.findOrganization(orgId);
  return { orgId, organizationName: organization?.name ?? orgId, canWrite: scopes.includes('write') };
};

/** The versions of one object that the query's `match[version]` (and other filters) select. */
export const selectVersions = (all: readonly Served[], query: Omit<ObjectQuery, 'limit'>): Page => {
  const last = all.at(-1);
  return { more: false, served: all.filter((one) => matches({ ...query, limit: 1 }, one, one === last)) };
};

/** A page of one of the organization's readable collections, as the key's caller reads it. */
export const readCollectionPage = async (
  deps: { store: TaxiiStore; cursors: CursorCodec; directory: Parameters<typeof callerOf>[0] },
  key: { orgId: string; scopes: readonly string[]; keyHash: string },
  collectionId: string,
  query: ObjectQuery,
) => {
  const name = await findCollection(deps.store, key.orgId, collectionId);
  const caller = await callerOf(deps.directory, key.orgId, key.scopes);
  return readPage(deps, { ...caller, keyHash: key.keyHash }, readable(name), query);
};
