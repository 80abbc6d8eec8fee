import { BadRequestError } from '../../errors.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import { type CursorCodec, INVALID_CURSOR } from '../core/cursor.ts';
import { dayWindow, nextDay } from '../core/dates.ts';
import { statusOf, timeOf, watchStatusOf } from './verdicts.ts';

/** The statuses an entry can be exported in: its verdict after its last change (`UNKNOWN` once it left the lists). */
export const EXPORT_STATUSES = ['ALLOWED', 'BLOCKED', 'UNKNOWN'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** One check-index entry as its last change left it. */
export type ExportedEntry = { key: string; type: AssetType; bits: number; version: string };

export type ExportPageQuery = {
  type: AssetType;
  status: ExportStatus;
  /** Inclusive UTC days of the last change. */
  from: string;
  to: string;
  limit: number;
  /** The page ends before the entry that would take the sum of `sizeOf` over `maxBytes`. */
  maxBytes: number;
  sizeOf: (entry: ExportedEntry) => number;
  /** Where the previous page stopped, as the store wrote it (opaque text). */
  position?: string;
};

export interface VerdictExportStore {
  /**
   * Entries of the type whose last change, on a day of the window, left them in the status, in
   * version order: up to `limit`. A page may hold fewer while more exist (the read budget of one
   * request was spent); only no `position` means the end.
   */
  page(query: ExportPageQuery): Promise<{ entries: ExportedEntry[]; position?: string }>;
}

/**
 * Lambda answers at most 6 MB, counted on the response as JSON, where the body is one escaped
 * string. The assets of one page stay within 5 MB of that, so 10,000 entries of 4,096-character
 * content (about 43 MB) come as several pages.
 */
export const MAX_PAGE_BYTES = 5_000_000;

const toAsset = (entry: ExportedEntry) => ({
  content: entry.key,
  type: entry.type,
  status: statusOf(entry.bits),
  watchStatus: watchStatusOf(entry.bits),
  updatedAt: new Date(timeOf(entry.version)).toISOString(),
  version: entry.version,
});

/** Bytes of an asset inside the response: JSON, escaped again as the body string, and its comma. */
const escapedSize = (entry: ExportedEntry): number =>
  Buffer.byteLength(JSON.stringify(JSON.stringify(toAsset(entry)))) - 1;

export type VerdictListQuery = {
  type: AssetType;
  status: ExportStatus;
  startDate?: string;
  endDate?: string;
  perPage: number;
  nextPage?: string;
};

/** What a `next_page` seals: the window the first page resolved (defaults follow the clock) and the store's position. */
type Resume = { from: string; to: string; position: string };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const readResume = (text: string): Resume => {
  let resume: Partial<Resume> | null;
  try {
    resume = JSON.parse(text) as Partial<Resume> | null;
  } catch (cause) {
    throw new BadRequestError(INVALID_CURSOR, { cause });
  }
  const { from, to, position } = resume ?? {};
  if (
    typeof from !== 'string' ||
    typeof to !== 'string' ||
    typeof position !== 'string' ||
    !DAY.test(from) ||
    !DAY.test(to)
  ) {
    throw new BadRequestError(INVALID_CURSOR);
  }
  return { from, to, position };
};

/**
 * `POST /asset/list`: the service's own verdicts of one type whose last change, on a day of the
 * window (default: yesterday and today, UTC), left them in `status`, oldest change first. The
 * cursor is sealed to the filters as sent and carries the window the first page resolved, so a
 * default window does not move under a client paging across midnight.
 */
export const listVerdicts = async (
  store: VerdictExportStore,
  cursors: CursorCodec,
  query: VerdictListQuery,
  today: string,
) => {
  const binding = {
    orgId: '*',
    filter: JSON.stringify(['verdicts', query.type, query.status, query.startDate ?? null, query.endDate ?? null]),
  };
  let window: { from: string; to: string; position?: string };
  if (query.nextPage === undefined) {
    const { startDay, endDay } = dayWindow(query, today);
    // A writer's clock may run a little ahead of this one; no change is stamped later than tomorrow.
    const tomorrow = nextDay(today);
    window = { from: startDay, to: endDay < tomorrow ? endDay : tomorrow };
  } else {
    window = readResume(await cursors.open(binding, query.nextPage));
  }
  if (window.from > window.to) return { assets: [], next_page: null };
  const page = await store.page({
    type: query.type,
    status: query.status,
    from: window.from,
    to: window.to,
    limit: query.perPage,
    maxBytes: MAX_PAGE_BYTES,
    sizeOf: escapedSize,
    ...(window.position === undefined ? {} : { position: window.position }),
  });
  const next =
    page.position === undefined
      ? null
      : await cursors.seal(binding, JSON.stringify({ from: window.from, to: window.to, position: page.position }));
  return { assets: page.entries.map(toAsset), next_page: next };
};
