import { BadRequestError } from '../../errors.ts';
import type { Caller } from '../account/access.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import type { Checker, CheckResult, IndexEntry, PublicSuffixes } from '../check/index.ts';
import { canonicalize, entryKeyOf } from '../check/index.ts';
import { assetIdOf } from '../core/ids.ts';
import type { ActivityRecord, ActivityStore } from '../lifecycle/activity.ts';
import type { ListStore } from '../lifecycle/lists.ts';
import { publicId } from '../lifecycle/views.ts';
import { type Consumption, type ConsumptionStore, consumersOf } from './consumers.ts';

/** Records read about one asset: its newest changes, in every organization. */
const RECORDS_PER_ASSET = 25;

/** A check-index entry as the verdict feeds publish it: its counters and its last change's time. */
export type VerdictEntry = IndexEntry & { changedAt: string };
export interface VerdictEntryStore {
  /** The entry at one check key; undefined when no verdict was ever recorded there. */
  find(checkKey: string): Promise<VerdictEntry | undefined>;
}

export type SearchDeps = {
  checker: Checker;
  verdicts: VerdictEntryStore;
  lists: ListStore;
  store: Pick<ActivityStore, 'find'>;
  directory: Pick<DirectoryStore, 'findMembership'>;
  consumers: ConsumptionStore;
  suffixes: PublicSuffixes;
};

/** The organizations among `orgIds` whose records the caller may see: its own, or a user's active memberships. */
export const visibleOrganizations = async (
  directory: Pick<DirectoryStore, 'findMembership'>,
  caller: Caller,
  orgIds: readonly string[],
): Promise<Set<string>> => {
  const distinct = [...new Set(orgIds)];
  if (caller.kind === 'organization') return new Set(distinct.filter((orgId) => orgId === caller.orgId));
  const memberships = await Promise.all(distinct.map((orgId) => directory.findMembership(caller.userId, orgId)));
  return new Set(distinct.filter((_, i) => memberships[i]?.status === 'ACTIVE'));
};

/**
 * The check key whose own verdict decides the service's block of `content`: the most specific
 * candidate key (exact, page, host, nearer parents) that holds a verdict, as in the check itself.
 * One read per candidate until one holds a verdict; a content has a handful.
 */
const decidingKey = async (
  suffixes: PublicSuffixes,
  verdicts: VerdictEntryStore,
  content: string,
  type: AssetType | undefined,
) => {
  const target = canonicalize(suffixes, content, type);
  if (target.kind !== 'keys') return undefined;
  for (const key of target.keys) {
    const entry = await verdicts.find(key);
    if (entry !== undefined && (entry.allow > 0 || entry.block > 0)) return key;
  }
  return undefined;
};

/** The channels that hand out the service's own block of the content; none when the service does not block it. */
const blockedByOf = async (
  deps: SearchDeps,
  caller: Caller,
  visible: ReadonlySet<string>,
  found: { content: string; type: AssetType | undefined; result: CheckResult | undefined },
): Promise<Consumption[]> => {
  if (found.result?.status !== 'BLOCKED' || found.result.source !== 'service') return [];
  const key = await decidingKey(deps.suffixes, deps.verdicts, found.content, found.type);
  if (key === undefined) return [];
  const orgIds = caller.kind === 'organization' ? [caller.orgId] : [...visible];
  return consumersOf(deps.consumers, key, orgIds);
};

const earliest = (times: readonly string[]) =>
  times.reduce<string | null>((a, t) => (a === null || t < a ? t : a), null);
const latest = (times: readonly string[]) => times.reduce<string | null>((a, t) => (a === null || t > a ? t : a), null);

const contentOf = (record: ActivityRecord): { content: string; type: AssetType } | undefined => {
  if (record.kind === 'threat') return { content: record.content, type: record.assetType };
  if (record.kind === 'takedown' && record.content !== undefined && record.assetType !== undefined) {
    return { content: record.content, type: record.assetType };
  }
  return undefined;
};

/**
 * The newest records of an asset, in every organization. A popular asset's newest may hide some of
 * the caller's own (its report behind a takedown, say): when the page is full, an organization's
 * own are read apart and added.
 */
export const recordsOfAsset = async (lists: ListStore, assetId: number, caller: Caller) => {
  const newest = await lists.byAsset(assetId, RECORDS_PER_ASSET);
  if (caller.kind !== 'organization' || newest.length < RECORDS_PER_ASSET) return newest;
  const keyOf = (record: ActivityRecord) => `${record.organization}/${record.kind}/${record.id}`;
  const seen = new Set(newest.map(keyOf));
  const own = await lists.byAssetOf(assetId, caller.orgId, RECORDS_PER_ASSET);
  return [...newest, ...own.filter((record) => !seen.has(keyOf(record)))];
};

/**
 * Whether a record may tell a caller who asked by id which content the id stands for. Another
 * organization's pending proposal is its own until reviewed: an id known only through one is
 * unknown to everyone else, exactly as an id nothing knows.
 */
const disclosesContent = (record: ActivityRecord, visible: ReadonlySet<string>): boolean =>
  visible.has(record.organization) || !(record.kind === 'threat' && record.status === 'PENDING');

/**
 * `POST /asset/search`: what the service knows of one asset (by content or id). The asset is
 * answered whenever anything knows the content: a verdict (allowlisted or blocked, by the service
 * or an external list), or a lifecycle record of any organization. Its times are only ones the
 * caller may see: the public verdict's last change and the records of the caller's own
 * organizations; another organization's reports, proposals and reviews never show, nor their
 * times (`createdAt` and `updatedAt` are null when nothing visible dates the asset). By id alone,
 * an id nothing the caller may know of names answers `asset: null`, as an unknown id does, when
 * another organization's pending proposal is all that names it.
 */
export const searchAsset = async (deps: SearchDeps, caller: Caller, query: { content?: string; assetId?: number }) => {
  if (query.content === undefined && query.assetId === undefined) {
    throw new BadRequestError('content or assetId is required');
  }
  const sentType = query.content === undefined ? undefined : detectAssetType(deps.suffixes, query.content);
  const sentKey = query.content === undefined ? undefined : entryKeyOf(deps.suffixes, query.content, sentType);
  const assetId = query.assetId ?? (sentKey === undefined ? undefined : assetIdOf(sentKey));
  const records = assetId === undefined ? [] : await recordsOfAsset(deps.lists, assetId, caller);
  const visible = await visibleOrganizations(
    deps.directory,
    caller,
    records.map((record) => record.organization),
  );
  const disclosing =
    query.content === undefined ? records.filter((record) => disclosesContent(record, visible)) : records;
  const recorded = disclosing.map(contentOf).find((found) => found !== undefined);
  const content = query.content ?? recorded?.content;
  const type = sentType ?? recorded?.type;
  const checkKey =
    sentKey ?? (recorded === undefined ? undefined : entryKeyOf(deps.suffixes, recorded.content, recorded.type));

  const [result, entry] = await Promise.all([
    content === undefined ? undefined : deps.checker.check(content),
    checkKey === undefined ? undefined : deps.verdicts.find(checkKey),
  ]);
  const own = records.filter((record) => visible.has(record.organization));
  const known = disclosing.length > 0 || entry !== undefined || (result !== undefined && result.status !== 'UNKNOWN');
  const times = [
    ...own.flatMap((record) => [record.createdAt, record.updatedAt]),
    ...(entry === undefined ? [] : [entry.changedAt]),
  ];
  const asset =
    known && content !== undefined
      ? {
          id: assetId ?? (checkKey === undefined ? null : assetIdOf(checkKey)),
          content,
          type: type ?? null,
          status: result?.status ?? 'UNKNOWN',
          watchStatus: entry !== undefined && entry.watch > 0 ? 'ENABLED' : 'DISABLED',
          createdAt: earliest(times),
          updatedAt: latest(times),
        }
      : null;

  const reportRefs = [
    ...new Map(
      own.flatMap((record) =>
        record.kind === 'threat' && record.reportId !== undefined
          ? [[`${record.organization}/${record.reportId}`, { organization: record.organization, id: record.reportId }]]
          : [],
      ),
    ).values(),
  ];
  const reports = await Promise.all(reportRefs.map((ref) => deps.store.find({ ...ref, kind: 'report' })));
  const takedown = own.find((record) => record.kind === 'takedown' && !record.deleted);
  const blockedBy = content === undefined ? [] : await blockedByOf(deps, caller, visible, { content, type, result });
  return {
    asset,
    reports: reports.flatMap((report) =>
      report?.kind === 'report' && !report.deleted && !report.incomplete
        ? [
            {
              id: publicId(report),
              title: report.title ?? '',
              status: report.status ?? 'CLOSED',
              createdAt: report.createdAt,
            },
          ]
        : [],
    ),
    takedown:
      takedown?.kind === 'takedown'
        ? {
            id: publicId(takedown),
            status: takedown.status,
            createdAt: takedown.createdAt,
            updatedAt: takedown.updatedAt,
            tasks: [],
          }
        : null,
    blockedBy,
  };
};
