import { ForbiddenError, UnprocessableContentError } from '../../errors.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import type { CheckIndexStore, PublicSuffixes } from '../check/index.ts';
import { canonicalize } from '../check/index.ts';
import { assetIdOf, newRecordIds, stableId } from '../core/ids.ts';
import { type ActivityRecord, effectsOfAll, type RecordWrite } from './activity.ts';
import type { ClaimName, LifecycleStore } from './store.ts';

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
  suffixes: PublicSuffixes;
};

export { assetIdOf };
export const organizationIdOf = (slug: string): number => stableId(`organization:${slug}`);

/** The name a pending proposal of this content (and requested status) holds in its organization. */
export const pendingClaim = (orgId: string, checkKey: string, status: string): ClaimName => ({
  kind: 'pending',
  orgId,
  checkKey,
  status,
});

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
  holders: ReadonlyMap<ClaimName, string>;
  /** How many assets share their content with another one of the report. */
  duplicated: number;
}> => {
  const errors: ReportAssetError[] = [];
  const checked: Checked[] = [];
  const occurrences = new Map<string, number>();
  for (const { content, status } of assets) {
    const target = canonicalize(deps.suffixes, content);
    if (
      target.kind === 'hosting-domain' ||
      (target.kind === 'keys' && isIgnored(target.domain ?? '', deps.ignoredHosts))
    ) {
      errors.push(failure(content, 'DOMAIN_NOT_ALLOWED'));
      continue;
    }
    const type = detectAssetType(deps.suffixes, content);
    const typed = type === undefined ? undefined : canonicalize(deps.suffixes, content, type);
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
  const claims = checked.map((asset) => pendingClaim(orgId, asset.checkKey, asset.status));
  const [entries, holders] = await Promise.all([
    keys.length > 0 ? deps.verdicts.lookup(keys) : [],
    deps.store.claimHolders(claims),
  ]);
  checked.forEach((asset, i) => {
    const entry = entries[i];
    if (entry !== undefined && entry.block > 0 && entry.allow === 0) {
      errors.push(failure(asset.content, 'ASSET_ALREADY_CORRECT'));
    } else if (holders.has(claims[i] as ClaimName)) {
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
 * count: in one commit when the store takes them in one. Otherwise in a sequence of commits the
 * store cuts: the report goes first, `incomplete` (counted nowhere, listed nowhere), with the
 * first proposals, and is completed (1 ms later, so no write meant for the incomplete one can
 * apply to it) with the last ones. A claim lost to a concurrent report rolls back what was
 * written. A write that fails may or may not have applied, so nothing is rolled back then: the
 * incomplete report left in the table is what the next report of one of its contents (the retry,
 * typically) finds and rolls back (`recoverAbandoned`).
 */
const writeReport = async (
  suffixes: PublicSuffixes,
  store: LifecycleStore,
  orgId: string,
  { record, proposals, checked }: Written,
): Promise<'committed' | 'stale' | 'claimed'> => {
  const incomplete: ActivityRecord = { ...record, incomplete: true };
  const complete: ActivityRecord = { ...record, updatedAt: later(record.updatedAt) };
  const { outcome, written } = await store.commitInParts(proposals.length, (start, end, position) => {
    const part = proposals.slice(start, end);
    const writes: RecordWrite[] = part.map((next) => ({ previous: undefined, next }));
    if (position === 'whole') writes.push({ previous: undefined, next: record });
    else if (position === 'first') writes.push({ previous: undefined, next: incomplete });
    else if (position === 'last') writes.push({ previous: incomplete, next: complete });
    const claims = part.map((proposal, i) => ({
      name: claimOf(orgId, checked[start + i] as Checked),
      holder: proposal.id,
    }));
    return { writes, effects: effectsOfAll(writes), guards: { claims } };
  });
  if (outcome === 'committed') return 'committed';
  await rollBack(suffixes, store, orgId, written > 0 ? incomplete : undefined, proposals.slice(0, written));
  return outcome === 'stale' ? 'stale' : 'claimed';
};

const claimOf = (orgId: string, asset: { checkKey: string; status: string }) =>
  pendingClaim(orgId, asset.checkKey, asset.status);

const later = (timestamp: string): string => new Date(Date.parse(timestamp) + 1).toISOString();
const withdrawn = (record: ActivityRecord): ActivityRecord => ({
  ...record,
  deleted: true,
  updatedAt: later(record.updatedAt),
});

/** Soft-deletes written proposals (releasing their claims) and then their incomplete report. */
const rollBack = async (
  suffixes: PublicSuffixes,
  store: LifecycleStore,
  orgId: string,
  report: ActivityRecord | undefined,
  proposals: ActivityRecord[],
): Promise<void> => {
  const withdrawal = (part: ActivityRecord[]) => {
    const writes = part.map((previous) => ({ previous, next: withdrawn(previous) }));
    const releases = part.flatMap((proposal) =>
      proposal.kind === 'threat'
        ? [claimOf(orgId, { checkKey: checkKeyOf(suffixes, proposal), status: 'BLOCKED' })]
        : [],
    );
    return { writes, effects: effectsOfAll(writes), guards: { releases } };
  };
  // Each withdrawal is conditioned on the proposal as read, so a part committed twice applies once.
  const { outcome, written } = await store.commitInParts(proposals.length, (start, end) =>
    withdrawal(proposals.slice(start, end)),
  );
  if (outcome !== 'committed') {
    // A proposal changed since it was read (reviewed meanwhile) refused its part and stopped the
    // sequence: the rest are withdrawn one at a time, so that proposal alone stays.
    for (const proposal of proposals.slice(written)) {
      const { writes, effects, guards } = withdrawal([proposal]);
      await store.commitMany(writes, effects, guards);
    }
  }
  if (report !== undefined) {
    const writes = [{ previous: report, next: withdrawn(report) }];
    await store.commitMany(writes, effectsOfAll(writes));
  }
};

/** The check-index key a proposal claims, as `checkAssets` derived it from the reported content. */
const checkKeyOf = (suffixes: PublicSuffixes, proposal: ActivityRecord & { kind: 'threat' }): string => {
  const target = canonicalize(suffixes, proposal.content, proposal.assetType);
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
  suffixes: PublicSuffixes,
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
  await rollBack(suffixes, store, orgId, report, written);
  return true;
};

/**
 * Rolls back the abandoned incomplete reports whose proposals hold any of `holders` (claim name →
 * proposal id). Returns whether one was rolled back, so the claims are read again.
 */
const recoverAbandoned = async (
  suffixes: PublicSuffixes,
  store: LifecycleStore,
  orgId: string,
  holders: ReadonlyMap<ClaimName, string>,
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
    if (await rollBackIfAbandoned(suffixes, store, orgId, reportId, now)) recovered = true;
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
export const rollBackAbandonedReports = async (
  suffixes: PublicSuffixes,
  store: LifecycleStore,
  now: string,
): Promise<number> => {
  const before = new Date(Date.parse(now) - ABANDONED_AFTER_MS).toISOString();
  let rolledBack = 0;
  for (const { organization, id } of await store.incompleteReports(before, SWEEP_LIMIT)) {
    if (await rollBackIfAbandoned(suffixes, store, organization, id, now)) rolledBack++;
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
    if (holders.size > 0 && (await recoverAbandoned(deps.suffixes, deps.store, orgId, holders, now))) {
      ({ errors, checked, holders, duplicated } = await checkAssets(deps, orgId, report.assets));
    }
    if (errors.length > 0) throw rejection(errors, report.assets.length, duplicated);
    const reportIds = ids ?? idsFor(checked.length);
    const { record, proposals } = buildRecords(orgId, report, checked, reportIds, now);
    const outcome = await writeReport(deps.suffixes, deps.store, orgId, { record, proposals, checked });
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
