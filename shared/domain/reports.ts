import { ForbiddenError, UnprocessableContentError } from '../errors.ts';
import { type ActivityRecord, effectsOfAll, type RecordWrite } from './activity.ts';
import { detectAssetType } from './asset-detection.ts';
import type { AssetType } from './asset-types.ts';
import { canonicalize } from './check/canonical.ts';
import type { CheckIndexStore } from './check/types.ts';
import { assetIdOf, newRecordIds, stableId } from './ids.ts';
import type { LifecycleStore } from './lifecycle-store.ts';
import type { DirectoryStore } from './organizations.ts';

export type ReportErrorType =
  | 'DUPLICATE_ASSETS'
  | 'INVALID_FORMAT'
  | 'ASSET_ALREADY_CORRECT'
  | 'ALREADY_PENDING_REVIEW'
  | 'DOMAIN_NOT_ALLOWED';
export type ReportAssetError = { asset: string; errorType: ReportErrorType; message: string; suggestion: string };

export type NewReport = {
  title: string;
  description: string;
  assets: { content: string; status: 'BLOCKED' }[];
  contactInfo?: string;
  attachmentUrls?: string[];
  externalReporter?: { platformIdentifier?: string; platform?: string; displayName?: string; avatarUrl?: string };
};

export type ReportDeps = {
  store: LifecycleStore;
  /** Uncached reads of the check index: the verdicts a report is checked against. */
  verdicts: CheckIndexStore;
  directory: Pick<DirectoryStore, 'findOrganization'>;
  /** Hosts nobody may report (the service's ignore list), besides hosting platforms' own domains. */
  ignoredHosts: readonly string[];
};

export { assetIdOf };
export const organizationIdOf = (slug: string): number => stableId(`organization:${slug}`);

/** The name a pending proposal of this content (and requested status) holds in its organization. */
export const pendingClaim = (orgId: string, checkKey: string, status: string): string =>
  `pending#${orgId}#${status}#${checkKey}`;

/**
 * Proposal records and their claims per transaction, leaving room for the report, its day counter,
 * its insight day item and that item's month rollup (2 × 48 + 4 = 100, the most a transaction takes).
 */
const PROPOSALS_PER_TRANSACTION = 48;
const ID_ATTEMPTS = 3;

const NO_REPORT_ACCESS = 'You do not have permission to access reports for this organization';

const MESSAGES: Record<ReportErrorType, { message: string; suggestion: string }> = {
  DUPLICATE_ASSETS: {
    message: 'This asset appears multiple times in the same report',
    suggestion: 'Remove duplicate assets from your submission - each asset should only appear once per report',
  },
  INVALID_FORMAT: {
    message: 'The content is not a URL, domain, address, handle or email this service can check',
    suggestion: 'Send the full URL (https://...), a domain, a 0x address, an @handle or an email address',
  },
  ASSET_ALREADY_CORRECT: {
    message: 'The asset already has the requested status',
    suggestion: 'Nothing to report: the service already blocks it',
  },
  ALREADY_PENDING_REVIEW: {
    message: 'A proposal for this asset and status is already awaiting review',
    suggestion: 'Wait for the pending review to finish',
  },
  DOMAIN_NOT_ALLOWED: {
    message: 'This domain hosts content of many owners, or may not be reported',
    suggestion: 'Report the page or subdomain on it that is malicious',
  },
};

const failure = (asset: string, errorType: ReportErrorType): ReportAssetError => ({
  asset,
  errorType,
  ...MESSAGES[errorType],
});

type Checked = { content: string; type: AssetType; checkKey: string; status: 'BLOCKED' };

const isIgnored = (host: string, ignored: readonly string[]): boolean =>
  ignored.some((domain) => host === domain || host.endsWith(`.${domain}`));

/** Every asset's problem, or the assets ready to become proposals when none has one. */
const checkAssets = async (
  deps: ReportDeps,
  orgId: string,
  assets: NewReport['assets'],
): Promise<{
  errors: ReportAssetError[];
  checked: Checked[];
  holders: ReadonlyMap<string, string>;
  /** How many assets share their content with another one of the report. */
  duplicated: number;
}> => {
  const errors: ReportAssetError[] = [];
  const checked: Checked[] = [];
  const occurrences = new Map<string, number>();
  for (const { content, status } of assets) {
    const target = canonicalize(content);
    if (
      target.kind === 'hosting-domain' ||
      (target.kind === 'keys' && isIgnored(target.domain ?? '', deps.ignoredHosts))
    ) {
      errors.push(failure(content, 'DOMAIN_NOT_ALLOWED'));
      continue;
    }
    const type = detectAssetType(content);
    const typed = type === undefined ? undefined : canonicalize(content, type);
    const checkKey = typed?.kind === 'keys' ? typed.keys[0] : undefined;
    if (type === undefined || checkKey === undefined) {
      errors.push(failure(content, 'INVALID_FORMAT'));
      continue;
    }
    const seen = occurrences.get(checkKey) ?? 0;
    occurrences.set(checkKey, seen + 1);
    if (seen > 0) {
      errors.push(failure(content, 'DUPLICATE_ASSETS'));
      continue;
    }
    checked.push({ content, type, checkKey, status });
  }
  const keys = checked.map((asset) => asset.checkKey);
  const [entries, holders] = await Promise.all([
    keys.length > 0 ? deps.verdicts.lookup(keys) : [],
    deps.store.claimHolders(checked.map((asset) => pendingClaim(orgId, asset.checkKey, asset.status))),
  ]);
  checked.forEach((asset, i) => {
    const entry = entries[i];
    if (entry !== undefined && entry.block > 0 && entry.allow === 0) {
      errors.push(failure(asset.content, 'ASSET_ALREADY_CORRECT'));
    } else if (holders.has(pendingClaim(orgId, asset.checkKey, asset.status))) {
      errors.push(failure(asset.content, 'ALREADY_PENDING_REVIEW'));
    }
  });
  const duplicated = [...occurrences.values()].reduce((sum, count) => (count > 1 ? sum + count : sum), 0);
  return { errors, checked, holders, duplicated };
};

/**
 * The answer to a report with invalid assets. Duplicates are named first, as the published API
 * does: how many submitted assets share their content with another.
 */
const rejection = (errors: ReportAssetError[], total: number, duplicated: number) =>
  new UnprocessableContentError(
    duplicated > 0
      ? `Report creation failed: Duplicate assets found. ${duplicated} asset(s) appear multiple times in the same report.`
      : `Report creation failed: ${errors.length} of ${total} assets are invalid. All assets must be valid to create a report.`,
    { data: { errors } },
  );

export type ReportIds = { reportId: number; proposalIds: number[] };
type ReportRecord = Extract<ActivityRecord, { kind: 'report' }>;

const buildRecords = (orgId: string, report: NewReport, checked: Checked[], ids: ReportIds, now: string) => {
  const proposals: ActivityRecord[] = checked.map((asset, i) => ({
    kind: 'threat',
    organization: orgId,
    id: String(ids.proposalIds[i]),
    brands: [],
    createdAt: now,
    updatedAt: now,
    deleted: false,
    content: asset.content,
    assetType: asset.type,
    status: 'PENDING',
    watchlisted: false,
    reportId: String(ids.reportId),
    assetId: assetIdOf(asset.checkKey),
  }));
  const reporter = {
    ...(report.contactInfo === undefined ? {} : { contactInfo: report.contactInfo }),
    ...(report.attachmentUrls === undefined ? {} : { attachmentUrls: report.attachmentUrls }),
    ...(report.externalReporter === undefined ? {} : { externalReporter: report.externalReporter }),
  };
  const record: ReportRecord = {
    kind: 'report',
    organization: orgId,
    id: String(ids.reportId),
    brands: [],
    createdAt: now,
    updatedAt: now,
    deleted: false,
    title: report.title,
    description: report.description,
    status: 'TODO',
    proposals: checked.map((asset, i) => ({
      id: ids.proposalIds[i] as number,
      assetId: assetIdOf(asset.checkKey),
      content: asset.content,
      type: asset.type,
      reviewStatus: 'PENDING',
    })),
    reporter,
  };
  return { record, proposals };
};

const idsFor = (proposals: number): ReportIds => {
  const [reportId, ...proposalIds] = newRecordIds(proposals + 1) as [number, ...number[]];
  return { reportId, proposalIds };
};

type Written = { record: ReportRecord; proposals: ActivityRecord[]; checked: Checked[] };

/**
 * Writes the proposals (with their pending claims) and the report, which is what the metrics
 * count. Up to 48 assets this is one transaction. A larger report takes one per 48 proposals: the
 * report goes first, `incomplete` (counted nowhere, listed nowhere), with the first proposals, and
 * is completed (1 ms later, so no write meant for the incomplete one can apply to it) with the
 * last ones. A claim lost to a concurrent report rolls back what was written. A write that fails
 * may or may not have applied, so nothing is rolled back then: the incomplete report left in the
 * table is what the next report of one of its contents (the retry, typically) finds and rolls back
 * (`recoverAbandoned`).
 */
const writeReport = async (
  store: LifecycleStore,
  orgId: string,
  { record, proposals, checked }: Written,
): Promise<'committed' | 'stale' | 'claimed'> => {
  const chunked = proposals.length > PROPOSALS_PER_TRANSACTION;
  const incomplete: ActivityRecord = { ...record, incomplete: true };
  const complete: ActivityRecord = { ...record, updatedAt: later(record.updatedAt) };
  const written: ActivityRecord[] = [];
  for (let start = 0; start < proposals.length; start += PROPOSALS_PER_TRANSACTION) {
    const part = proposals.slice(start, start + PROPOSALS_PER_TRANSACTION);
    const last = start + PROPOSALS_PER_TRANSACTION >= proposals.length;
    const writes: RecordWrite[] = part.map((next) => ({ previous: undefined, next }));
    if (!chunked) writes.push({ previous: undefined, next: record });
    else if (start === 0) writes.push({ previous: undefined, next: incomplete });
    else if (last) writes.push({ previous: incomplete, next: complete });
    const claims = part.map((proposal, i) => ({
      name: claimOf(orgId, checked[start + i] as Checked),
      holder: proposal.id,
    }));
    const outcome = await store.commitMany(writes, effectsOfAll(writes), { claims });
    if (outcome !== 'committed') {
      await rollBack(store, orgId, written.length > 0 ? incomplete : undefined, written);
      return outcome === 'stale' ? 'stale' : 'claimed';
    }
    written.push(...part);
  }
  return 'committed';
};

const claimOf = (orgId: string, asset: { checkKey: string; status: string }) =>
  pendingClaim(orgId, asset.checkKey, asset.status);

const later = (timestamp: string): string => new Date(Date.parse(timestamp) + 1).toISOString();
const withdrawn = (record: ActivityRecord): ActivityRecord => ({
  ...record,
  deleted: true,
  updatedAt: later(record.updatedAt),
});

/**
 * Items a proposal's withdrawal may take in a transaction: a pending one its record and its claim; a
 * reviewed one also the check-index entry and verdict-log item of the block it lifts and its share
 * of the day counters and insight day items it leaves. Chunks are cut so their sum stays within `ROLLBACK_ITEMS`.
 */
const withdrawalItems = (proposal: ActivityRecord): number =>
  proposal.kind === 'threat' && proposal.status !== 'PENDING' ? 7 : 2;
/** 100 items less a margin: the weights above are per proposal, and a chunk's day counters are shared between them. */
const ROLLBACK_ITEMS = 96;

const rollbackChunks = (proposals: ActivityRecord[]): ActivityRecord[][] => {
  const chunks: ActivityRecord[][] = [];
  let chunk: ActivityRecord[] = [];
  let items = 0;
  for (const proposal of proposals) {
    const cost = withdrawalItems(proposal);
    if (chunk.length > 0 && items + cost > ROLLBACK_ITEMS) {
      chunks.push(chunk);
      chunk = [];
      items = 0;
    }
    chunk.push(proposal);
    items += cost;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
};

/** Soft-deletes written proposals (releasing their claims) and then their incomplete report. */
const rollBack = async (
  store: LifecycleStore,
  orgId: string,
  report: ActivityRecord | undefined,
  proposals: ActivityRecord[],
): Promise<void> => {
  for (const part of rollbackChunks(proposals)) {
    const writes = part.map((previous) => ({ previous, next: withdrawn(previous) }));
    const releases = part.flatMap((proposal) =>
      proposal.kind === 'threat' ? [claimOf(orgId, { checkKey: checkKeyOf(proposal), status: 'BLOCKED' })] : [],
    );
    await store.commitMany(writes, effectsOfAll(writes), { releases });
  }
  if (report !== undefined) {
    const writes = [{ previous: report, next: withdrawn(report) }];
    await store.commitMany(writes, effectsOfAll(writes));
  }
};

/** The check-index key a proposal claims, as `checkAssets` derived it from the reported content. */
const checkKeyOf = (proposal: ActivityRecord & { kind: 'threat' }): string => {
  const target = canonicalize(proposal.content, proposal.assetType);
  return target.kind === 'keys' ? (target.keys[0] as string) : proposal.content;
};

/**
 * An incomplete report older than this was abandoned: functions run for at most 10 s, so its
 * request ended long ago and nothing writes it any more.
 */
export const ABANDONED_AFTER_MS = 60_000;

/**
 * Rolls back report `reportId` if it was abandoned: still incomplete, not withdrawn, and created
 * `ABANDONED_AFTER_MS` or more before `now`. Its written proposals are withdrawn (their claims let
 * go), then the report. Whether it was rolled back.
 */
const rollBackIfAbandoned = async (
  store: LifecycleStore,
  orgId: string,
  reportId: string,
  now: string,
): Promise<boolean> => {
  const report = await store.find({ organization: orgId, kind: 'report', id: reportId });
  const abandoned =
    report?.kind === 'report' &&
    report.incomplete === true &&
    !report.deleted &&
    Date.parse(report.createdAt) <= Date.parse(now) - ABANDONED_AFTER_MS;
  if (!abandoned) return false;
  const proposals = await Promise.all(
    (report.proposals ?? []).map(({ id }) => store.find({ organization: orgId, kind: 'threat', id: String(id) })),
  );
  const written = proposals.flatMap((proposal) =>
    proposal?.kind === 'threat' && !proposal.deleted && proposal.reportId === reportId ? [proposal] : [],
  );
  await rollBack(store, orgId, report, written);
  return true;
};

/**
 * Rolls back the abandoned incomplete reports whose proposals hold any of `holders` (claim name →
 * proposal id). Returns whether one was rolled back, so the claims are read again.
 */
const recoverAbandoned = async (
  store: LifecycleStore,
  orgId: string,
  holders: ReadonlyMap<string, string>,
  now: string,
): Promise<boolean> => {
  const holding = await Promise.all(
    [...new Set(holders.values())].map((id) => store.find({ organization: orgId, kind: 'threat', id })),
  );
  const reportIds = new Set(
    holding.flatMap((proposal) => (proposal?.kind === 'threat' && proposal.reportId ? [proposal.reportId] : [])),
  );
  let recovered = false;
  for (const reportId of reportIds) {
    if (await rollBackIfAbandoned(store, orgId, reportId, now)) recovered = true;
  }
  return recovered;
};

/** Incomplete reports one sweep looks at, oldest first; the next sweep takes the rest. */
const SWEEP_LIMIT = 50;

/**
 * The scheduled sweep: rolls back the reports abandoned before `now` (their request ended, a
 * crash or a timeout between two of their transactions), so that none stays in the table waiting
 * for a report of one of its contents to find it. Returns how many were rolled back.
 */
export const rollBackAbandonedReports = async (store: LifecycleStore, now: string): Promise<number> => {
  const before = new Date(Date.parse(now) - ABANDONED_AFTER_MS).toISOString();
  let rolledBack = 0;
  for (const { organization, id } of await store.incompleteReports(before, SWEEP_LIMIT)) {
    if (await rollBackIfAbandoned(store, organization, id, now)) rolledBack++;
  }
  return rolledBack;
};

/**
 * `POST /report/create`: all or nothing. Every asset is checked first; if any fails, 422 lists
 * each failure and nothing is written. Otherwise one report (counted in `reports` by its
 * `createdAt`) and one pending proposal per asset.
 */
export const createReport = async (
  deps: ReportDeps,
  orgId: string,
  report: NewReport,
  { now, ids }: { now: string; ids?: ReportIds },
) => {
  const organization = await deps.directory.findOrganization(orgId);
  if (!organization) throw new ForbiddenError(NO_REPORT_ACCESS);
  for (let attempt = 1; ; attempt++) {
    let { errors, checked, holders, duplicated } = await checkAssets(deps, orgId, report.assets);
    if (holders.size > 0 && (await recoverAbandoned(deps.store, orgId, holders, now))) {
      ({ errors, checked, holders, duplicated } = await checkAssets(deps, orgId, report.assets));
    }
    if (errors.length > 0) throw rejection(errors, report.assets.length, duplicated);
    const reportIds = ids ?? idsFor(checked.length);
    const { record, proposals } = buildRecords(orgId, report, checked, reportIds, now);
    const outcome = await writeReport(deps.store, orgId, { record, proposals, checked });
    if (outcome === 'committed') {
      return {
        id: reportIds.reportId,
        createdAt: now,
        organization: { id: organizationIdOf(orgId), slug: organization.slug, name: organization.name },
      };
    }
    if (attempt >= ID_ATTEMPTS || ids !== undefined) {
      throw new Error(`Report ${reportIds.reportId} could not be written: ${outcome}`);
    }
  }
};
