import { ConflictError, ForbiddenError, NotFoundError, TooManyRequestsError } from '../../errors.ts';
import type { Brand, DirectoryStore } from '../account/organizations.ts';
import type { CheckIndexStore, PublicSuffixes } from '../check/index.ts';
import { entryKeyOf } from '../check/index.ts';
import { newRecordId, stableId } from '../core/ids.ts';
import { type ActivityRecord, effectsOfAll, type RecordWrite, type ReviewStatus, toRecord } from './activity.ts';
import { pendingClaim } from './reports.ts';
import type { CommitGuards, LifecycleStore } from './store.ts';

export const REVIEW_DECISIONS = ['APPROVE', 'REJECT', 'WATCHLIST'] as const;
export const REVIEW_LABELS = [
  'Brand Impersonation',
  'Employee Impersonation',
  'Fake Employee',
  'Targeting Org Users',
  'General Phishing',
  'C2 Server',
  'False Positive',
] as const;
export const IMPERSONATION_LABELS: readonly string[] = ['Brand Impersonation', 'Employee Impersonation'];
export const REJECT_REASONS = [
  'irrelevant',
  'no_malicious_activity',
  'insufficient_evidence',
  'not_targeting_org',
  'decayed',
] as const;
export const WATCHLIST_REASONS = ['DEAD', 'PARKING', 'NOT_ENOUGH_EVIDENCE', 'OTHER'] as const;

/** The review body once its conditional fields were checked (see the handler's schema). */
export type ReviewInput = {
  assetId: number;
  decision: (typeof REVIEW_DECISIONS)[number];
  label?: string;
  brandId?: number;
  rejectReason?: string;
  watchlistReason?: string;
  note?: string;
};

export type ReviewDeps = {
  store: LifecycleStore;
  verdicts: CheckIndexStore;
  directory: Pick<DirectoryStore, 'findOrganization' | 'listBrands'>;
  /** Reviews per organization per rolling 24 hours; 0 = unlimited. */
  dailyLimit: number;
  suffixes: PublicSuffixes;
};

/** The review budget's window: a review counts against its organization for 24 hours. */
const BUDGET_WINDOW_MS = 86_400_000;

/**
 * The uses a review leaves in its organization's budget: the ones still in the window plus this
 * one; or, when the window holds `limit` already, the seconds until the oldest of them leaves it.
 */
export const spendReview = (
  uses: readonly number[],
  limit: number,
  now: number,
): { uses: number[] } | { retryAfterSeconds: number } => {
  const recent = uses.filter((use) => use > now - BUDGET_WINDOW_MS).sort((a, b) => a - b);
  if (recent.length < limit) return { uses: [...recent, now] };
  const freesAt = (recent[recent.length - limit] as number) + BUDGET_WINDOW_MS;
  return { retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)) };
};

const READABLE_REJECT_REASONS: Record<string, string> = {
  irrelevant: 'Irrelevant',
  no_malicious_activity: 'No malicious activity',
  insufficient_evidence: 'Insufficient evidence',
  not_targeting_org: 'Not targeting the organization',
  decayed: 'Decayed',
};
const READABLE_WATCHLIST_REASONS: Record<string, string> = {
  DEAD: 'Dead page',
  PARKING: 'Parking page',
  NOT_ENOUGH_EVIDENCE: 'Not enough evidence',
  OTHER: 'Other',
};

/**
 * A review's comment, composed from its reason and note: `Add to watchlist: <note>` (the reason
 * when there is no note) for WATCHLIST; the label, then `: <note>` when there is one, for APPROVE;
 * the reject reason, then `: <note>`, for REJECT.
 */
export const reviewComment = (input: ReviewInput): string => {
  const withNote = (head: string) => (input.note === undefined ? head : `${head}: ${input.note}`);
  switch (input.decision) {
    case 'WATCHLIST':
      return `Add to watchlist: ${input.note ?? READABLE_WATCHLIST_REASONS[input.watchlistReason ?? ''] ?? ''}`;
    case 'APPROVE':
      return withNote(input.label ?? '');
    case 'REJECT':
      return withNote(READABLE_REJECT_REASONS[input.rejectReason ?? ''] ?? '');
  }
};

/** The organization flag that files a takedown for every approved proposal. */
const TAKEDOWNS_FLAG = 'takedowns';
const STALE_ATTEMPTS = 8;

export const brandIdOf = (brand: Pick<Brand, 'orgId' | 'slug'>): number =>
  stableId(`brand:${brand.orgId}/${brand.slug}`);

export const reviewStatusOf = (record: ActivityRecord): ReviewStatus => {
  if (record.kind !== 'threat' || record.status === 'PENDING') return 'PENDING';
  return record.status === 'REJECTED' ? 'REJECTED' : 'APPROVED';
};

/** An asset's status as a proposal shows it: BLOCKED once approved, UNKNOWN before and after a rejection. */
export const proposalAssetStatus = (status: ReviewStatus): 'BLOCKED' | 'UNKNOWN' =>
  status === 'APPROVED' ? 'BLOCKED' : 'UNKNOWN';

const notFound = () => new NotFoundError('Proposal not found');

/** Later than both `now` and the record's last change, so every version has its own `updatedAt`. */
const after = (record: ActivityRecord, now: number): string =>
  new Date(Math.max(now, Date.parse(record.updatedAt) + 1)).toISOString();

const findBrand = async (deps: ReviewDeps, orgId: string, brandId: number | undefined) => {
  if (brandId === undefined) return undefined;
  const brand = (await deps.directory.listBrands(orgId)).find((candidate) => brandIdOf(candidate) === brandId);
  if (!brand) throw new NotFoundError('Brand not found');
  return brand;
};

const assertNotAllowlisted = async (deps: ReviewDeps, proposal: ActivityRecord & { kind: 'threat' }) => {
  const checkKey = entryKeyOf(deps.suffixes, proposal.content, proposal.assetType);
  if (checkKey === undefined) return;
  const [entry] = await deps.verdicts.lookup([checkKey]);
  if (entry !== undefined && entry.allow > 0) {
    throw new ForbiddenError('This content is allowlisted by an organization and cannot be blocked');
  }
};

type Decided = { threat: ActivityRecord; report: ActivityRecord | undefined; takedown: ActivityRecord | undefined };

const decide = (
  suffixes: PublicSuffixes,
  proposal: ActivityRecord & { kind: 'threat' },
  report: ActivityRecord | undefined,
  input: ReviewInput,
  brand: Brand | undefined,
  takedowns: boolean,
  at: number,
): Decided & { review: NonNullable<(ActivityRecord & { kind: 'threat' })['review']> } => {
  const updatedAt = after(proposal, at);
  const approved = input.decision === 'APPROVE';
  const review = {
    id: newRecordId(at),
    decision: approved ? ('APPROVE' as const) : ('REJECT' as const),
    label: approved ? (input.label ?? '') : '',
    brandId: input.brandId ?? null,
    comment: reviewComment(input),
    reason: input.rejectReason ?? input.watchlistReason ?? null,
    createdAt: updatedAt,
  };
  const threat = toRecord(suffixes, proposal, {
    ...proposal,
    status: approved ? 'APPROVED' : 'REJECTED',
    watchlisted: proposal.watchlisted || input.decision === 'WATCHLIST',
    brands: brand ? [...new Set([...proposal.brands, brand.slug])] : proposal.brands,
    updatedAt,
    review,
  });
  const reviewStatus = reviewStatusOf(threat);
  let nextReport: ActivityRecord | undefined;
  if (report?.kind === 'report') {
    const proposals = (report.proposals ?? []).map((entry) =>
      String(entry.id) === proposal.id ? { ...entry, reviewStatus } : entry,
    );
    const open = proposals.some((entry) => entry.reviewStatus === 'PENDING');
    nextReport = {
      ...report,
      proposals,
      status: open ? 'IN_PROGRESS' : 'CLOSED',
      brands: brand && approved ? [...new Set([...report.brands, brand.slug])] : report.brands,
      updatedAt: after(report, at),
    };
  }
  const takedown: ActivityRecord | undefined =
    approved && takedowns
      ? {
          kind: 'takedown',
          organization: proposal.organization,
          id: String(newRecordId(at)),
          brands: brand ? [brand.slug] : [],
          createdAt: updatedAt,
          updatedAt,
          deleted: false,
          status: 'TODO',
          threatId: proposal.id,
          content: proposal.content,
          assetType: proposal.assetType,
          ...(proposal.assetId === undefined ? {} : { assetId: proposal.assetId }),
        }
      : undefined;
  return { threat, report: nextReport, takedown, review };
};

/**
 * `POST /organization/proposals/{id}/review`: one transaction writes the proposal's threat
 * (APPROVED with the review's brand, or REJECTED, watchlisted for WATCHLIST), its report's
 * status and summary, a FILED takedown when the organization has the `takedowns` flag, every
 * counter and check-index change, the release of the pending claim and one use of the daily
 * review budget.
 */
export const reviewProposal = async (
  deps: ReviewDeps,
  orgId: string,
  proposalId: number,
  input: ReviewInput,
  now: number,
) => {
  let budgetRetries = 0;
  for (let attempt = 1; ; attempt++) {
    const proposal = await deps.store.find({ organization: orgId, kind: 'threat', id: String(proposalId) });
    if (proposal?.kind !== 'threat' || proposal.deleted || proposal.reportId === undefined) throw notFound();
    if (proposal.assetId !== input.assetId) throw new ConflictError("assetId does not match the proposal's asset");
    if (proposal.status !== 'PENDING') throw new ConflictError('Proposal has already been reviewed');
    const brand = await findBrand(deps, orgId, input.brandId);
    if (input.decision === 'APPROVE') await assertNotAllowlisted(deps, proposal);
    const [report, organization] = await Promise.all([
      deps.store.find({ organization: orgId, kind: 'report', id: proposal.reportId }),
      deps.directory.findOrganization(orgId),
    ]);
    const takedowns = organization?.featureFlags.includes(TAKEDOWNS_FLAG) ?? false;
    const decided = decide(deps.suffixes, proposal, report, input, brand, takedowns, now);
    const writes: RecordWrite[] = [{ previous: proposal, next: decided.threat }];
    if (decided.report) writes.push({ previous: report, next: decided.report });
    if (decided.takedown) writes.push({ previous: undefined, next: decided.takedown });
    let budget: NonNullable<CommitGuards['budget']> | undefined;
    if (deps.dailyLimit > 0) {
      const name = { kind: 'reviews', orgId } as const;
      const state = await deps.store.readBudget(name);
      const spent = spendReview(state.uses, deps.dailyLimit, now);
      if ('retryAfterSeconds' in spent) {
        throw new TooManyRequestsError(`Review limit of ${deps.dailyLimit} per day reached for this organization.`, {
          retryAfterSeconds: spent.retryAfterSeconds,
        });
      }
      budget = { name, uses: spent.uses, version: state.version, windowMs: BUDGET_WINDOW_MS };
    }
    const outcome = await deps.store.commitMany(writes, effectsOfAll(writes), {
      releases: [pendingClaim(orgId, entryKeyOf(deps.suffixes, proposal.content, proposal.assetType) ?? '', 'BLOCKED')],
      ...(budget === undefined ? {} : { budget }),
    });
    if (outcome === 'committed') {
      const reviewStatus = reviewStatusOf(decided.threat);
      return {
        proposal: {
          id: proposalId,
          reviewStatus,
          asset: {
            id: proposal.assetId,
            type: proposal.assetType,
            content: proposal.content,
            status: proposalAssetStatus(reviewStatus),
          },
        },
        review: {
          id: decided.review.id,
          decision: decided.review.decision,
          label: decided.review.label,
          brandId: decided.review.brandId,
          comment: decided.review.comment,
          createdAt: decided.review.createdAt,
        },
        watchlisted: input.decision === 'WATCHLIST',
      };
    }
    // Each `budget-moved` is another review committed, and at most `dailyLimit` commit before the
    // budget refuses, so those retries are bounded by the limit, not by STALE_ATTEMPTS.
    if (outcome === 'budget-moved') budgetRetries++;
    if (attempt - budgetRetries >= STALE_ATTEMPTS || budgetRetries > deps.dailyLimit) {
      throw new Error(`Proposal ${proposalId} kept changing under this review`);
    }
  }
};
