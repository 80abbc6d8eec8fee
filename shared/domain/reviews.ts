import { ConflictError, ForbiddenError, NotFoundError, TooManyRequestsError } from '../errors.ts';
import { type ActivityRecord, effectsOfAll, type RecordWrite, type ReviewStatus, toRecord } from './activity.ts';
import { entryKeyOf } from './check/canonical.ts';
import type { CheckIndexStore } from './check/types.ts';
import { newRecordId, stableId } from './ids.ts';
import type { LifecycleStore } from './lifecycle-store.ts';
import type { Brand, DirectoryStore } from './organizations.ts';
import { pendingClaim } from './reports.ts';

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
  /** Reviews per organization per UTC day; 0 = unlimited. */
  dailyLimit: number;
};

/** The organization flag that files a takedown for every approved proposal. */
const TAKEDOWNS_FLAG = 'takedowns';
const STALE_ATTEMPTS = 8;
const DAY_MS = 86_400_000;

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
  const checkKey = entryKeyOf(proposal.content, proposal.assetType);
  if (checkKey === undefined) return;
  const [entry] = await deps.verdicts.lookup([checkKey]);
  if (entry !== undefined && entry.allow > 0) {
    throw new ForbiddenError('This content is allowlisted by an organization and cannot be blocked');
  }
};

type Decided = { threat: ActivityRecord; report: ActivityRecord | undefined; takedown: ActivityRecord | undefined };

const decide = (
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
    label: input.label ?? null,
    brandId: input.brandId ?? null,
    comment: input.note ?? null,
    reason: input.rejectReason ?? input.watchlistReason ?? null,
    createdAt: updatedAt,
  };
  const threat = toRecord(proposal, {
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
    const decided = decide(proposal, report, input, brand, takedowns, now);
    const writes: RecordWrite[] = [{ previous: proposal, next: decided.threat }];
    if (decided.report) writes.push({ previous: report, next: decided.report });
    if (decided.takedown) writes.push({ previous: undefined, next: decided.takedown });
    const day = new Date(now).toISOString().slice(0, 10);
    const outcome = await deps.store.commitMany(writes, effectsOfAll(writes), {
      releases: [pendingClaim(orgId, entryKeyOf(proposal.content, proposal.assetType) ?? '', 'BLOCKED')],
      ...(deps.dailyLimit > 0
        ? {
            budget: {
              name: `reviews#${orgId}#${day}`,
              limit: deps.dailyLimit,
              expiresAt: Math.floor((Date.parse(day) + 2 * DAY_MS) / 1000),
            },
          }
        : {}),
    });
    if (outcome === 'over-budget') {
      throw new TooManyRequestsError(`Review limit of ${deps.dailyLimit} per day reached for this organization.`);
    }
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
    if (attempt >= STALE_ATTEMPTS) throw new Error(`Proposal ${proposalId} kept changing under this review`);
  }
};
