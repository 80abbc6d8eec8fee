import type { KeyResolver } from '../account/api-keys.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import type { CursorCodec } from '../core/cursor.ts';
import { dayWindow, orderedBounds } from '../core/dates.ts';
import { externalIdOf, recordNumber } from '../core/ids.ts';
import { type ActivityRecord, LEGACY_TAKEDOWN_STATUSES, type LivenessStatus, type TakedownStatus } from './activity.ts';
import type { Listing, ListQuery, ListStore } from './lists.ts';
import { brandIdOf, proposalAssetStatus } from './reviews.ts';

/** The `id` a record answers with: always a number, whatever id it was recorded under. */
export const publicId = (record: { kind: ActivityRecord['kind']; organization: string; id: string }): number =>
  recordNumber(record.kind, record.organization, record.id);

type Paging = { limit: number; cursor?: string };

/** What a list handler needs besides its own stores: keys to authenticate, the list store, the cursor codec. */
export type ListDeps = { keys: KeyResolver; lists: ListStore; cursors: CursorCodec };

/** The paging of a list request body: `per_page` (default 10) and the `next_page` cursor. */
export const pagingOf = ({ per_page, next_page }: { per_page?: number | null; next_page?: string | null }): Paging => ({
  limit: per_page ?? 10,
  ...(next_page ? { cursor: next_page } : {}),
});

/** Reads one page, the cursor sealed to the organization and the filters it was issued for. */
const readPage = async (
  store: ListStore,
  cursors: CursorCodec,
  query: Omit<ListQuery, 'position' | 'limit'>,
  paging: Paging,
) => {
  const binding = { orgId: query.orgId, filter: JSON.stringify([query.listing, query.range, query.filter]) };
  const position = paging.cursor === undefined ? undefined : await cursors.open(binding, paging.cursor);
  const page = await store.page({ ...query, limit: paging.limit, ...(position ? { position } : {}) });
  return { records: page.records, next: page.position ? await cursors.seal(binding, page.position) : null };
};

export type ReportsQuery = Paging & {
  startDate?: string;
  endDate?: string;
  onlyRejected?: boolean;
  needsCustomerReview?: boolean;
};

const reportListing = (query: ReportsQuery): Listing => {
  if (query.needsCustomerReview && query.onlyRejected) return 'reports-pending-rejected';
  if (query.needsCustomerReview) return 'reports-pending';
  return query.onlyRejected ? 'reports-rejected' : 'reports';
};

const reportView = (record: ActivityRecord) => {
  const report = record.kind === 'report' ? record : undefined;
  const proposals = report?.proposals ?? [];
  return {
    id: publicId(record),
    externalId: externalIdOf(record.id),
    title: report?.title ?? '',
    description: report?.description ?? '',
    status: report?.status ?? 'CLOSED',
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    assets: proposals.map((p) => ({
      id: p.assetId,
      content: p.content,
      type: p.type,
      status: proposalAssetStatus(p.reviewStatus),
    })),
    proposals: proposals.map((p) => ({
      id: p.id,
      reviewStatus: p.reviewStatus,
      asset: { id: p.assetId, type: p.type, content: p.content, status: proposalAssetStatus(p.reviewStatus) },
    })),
  };
};

/** `GET /organization/reports`: newest first, by `createdAt`; each bound (a UTC day) covers its whole day. */
export const listReports = async (store: ListStore, cursors: CursorCodec, orgId: string, query: ReportsQuery) => {
  const from = query.startDate;
  const to = query.endDate;
  orderedBounds(from, to);
  const page = await readPage(
    store,
    cursors,
    { listing: reportListing(query), orgId, range: { from, to }, descending: true, filter: {} },
    query,
  );
  return { reports: page.records.map(reportView), nextCursor: page.next, cursor: page.next };
};

export type Sorting<K extends string> = { key: K; direction: 'asc' | 'desc' };

export type ThreatsQuery = Paging & {
  query?: string;
  startDate?: string;
  endDate?: string;
  assetType?: AssetType[];
  sorting?: Sorting<'id' | 'blockedAt' | 'content' | 'type'>[];
};

const THREAT_LISTINGS = {
  id: 'threats-by-id',
  blockedAt: 'threats-by-blockedAt',
  content: 'threats-by-content',
  type: 'threats-by-type',
} as const;

/**
 * `POST /threats/list`: the organization's blocking threats blocked within the window (default:
 * yesterday and today, UTC), in the order of the first `sorting` entry (default id ascending).
 */
export const listThreats = async (
  store: ListStore,
  cursors: CursorCodec,
  orgId: string,
  query: ThreatsQuery,
  today: string,
) => {
  const { startDay, endDay } = dayWindow(query, today);
  const from = `${startDay}T00:00:00.000Z`;
  const to = `${endDay}T23:59:59.999Z`;
  const sorting = query.sorting?.[0] ?? { key: 'id', direction: 'asc' };
  const byBlockedAt = sorting.key === 'blockedAt';
  const page = await readPage(
    store,
    cursors,
    {
      listing: THREAT_LISTINGS[sorting.key],
      orgId,
      ...(byBlockedAt ? { range: { from, to } } : {}),
      descending: sorting.direction === 'desc',
      filter: {
        ...(query.assetType?.length ? { assetTypes: query.assetType } : {}),
        ...(query.query ? { contentContains: query.query.toLowerCase() } : {}),
        ...(byBlockedAt ? {} : { between: { attribute: 'blockedAt' as const, from, to } }),
      },
    },
    query,
  );
  const threats = page.records.flatMap((record) =>
    record.kind === 'threat'
      ? [
          {
            id: publicId(record),
            externalId: externalIdOf(record.id),
            content: record.content,
            type: record.assetType,
            blockedAt: record.blockedAt,
          },
        ]
      : [],
  );
  return { threats, next_page: page.next };
};

export type TakedownsQuery = Paging & {
  query?: string;
  startDate?: string;
  endDate?: string;
  assetType?: AssetType[];
  takedownStatus?: TakedownStatus[];
  livenessStatus?: LivenessStatus[];
  sorting?: Sorting<'updatedAt' | 'createdAt'>[];
};

/** The stored statuses a status filter matches: items written before the rename keep the old names until migrated. */
const storedStatuses = (statuses: readonly TakedownStatus[]): string[] => [
  ...statuses,
  ...Object.entries(LEGACY_TAKEDOWN_STATUSES).flatMap(([legacy, status]) =>
    statuses.includes(status) ? [legacy] : [],
  ),
];

/** `POST /takedowns/list`: the organization's takedowns changed within the window, newest change first by default. */
export const listTakedowns = async (
  stores: { lists: ListStore; directory: Pick<DirectoryStore, 'listBrands'> },
  cursors: CursorCodec,
  orgId: string,
  query: TakedownsQuery,
) => {
  const from = query.startDate === undefined ? undefined : `${query.startDate}T00:00:00.000Z`;
  const to = query.endDate === undefined ? undefined : `${query.endDate}T23:59:59.999Z`;
  orderedBounds(from, to);
  const sorting = query.sorting?.[0] ?? { key: 'updatedAt', direction: 'desc' };
  const byUpdatedAt = sorting.key === 'updatedAt';
  const window = from !== undefined || to !== undefined;
  const [page, brands] = await Promise.all([
    readPage(
      stores.lists,
      cursors,
      {
        listing: byUpdatedAt ? 'takedowns-by-updatedAt' : 'takedowns-by-createdAt',
        orgId,
        ...(byUpdatedAt && window ? { range: { from, to } } : {}),
        descending: sorting.direction === 'desc',
        filter: {
          ...(query.assetType?.length ? { assetTypes: query.assetType } : {}),
          ...(query.takedownStatus?.length ? { statuses: storedStatuses(query.takedownStatus) } : {}),
          ...(query.livenessStatus?.length ? { liveness: query.livenessStatus } : {}),
          ...(query.query ? { contentContains: query.query.toLowerCase() } : {}),
          ...(!byUpdatedAt && window
            ? { between: { attribute: 'updatedAt' as const, from: from ?? '', to: to ?? '\uffff' } }
            : {}),
        },
      },
      query,
    ),
    stores.directory.listBrands(orgId),
  ]);
  const brandOf = new Map(brands.map((brand) => [brand.slug, brand]));
  const takedowns = page.records.flatMap((record) => {
    if (record.kind !== 'takedown') return [];
    const brand = record.brands[0] === undefined ? undefined : brandOf.get(record.brands[0]);
    return [
      {
        id: publicId(record),
        externalId: externalIdOf(record.id),
        status: record.status,
        createdAt: record.createdAt,
        updatedAt: record.updatedAt,
        asset:
          record.content === undefined
            ? null
            : {
                id: record.assetId ?? null,
                content: record.content,
                type: record.assetType ?? null,
                livenessStatus: record.livenessStatus ?? 'UNKNOWN',
              },
        assignee: record.assignee ?? null,
        brand: brand ? { id: brandIdOf(brand), name: brand.name, slug: brand.slug } : null,
      },
    ];
  });
  return { takedowns, next_page: page.next };
};
