import { BadRequestError, NotFoundError } from '../../errors.ts';
import type { Caller } from '../account/access.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import type { Checker, CheckResult, PublicSuffixes } from '../check/index.ts';
import { entryKeyOf } from '../check/index.ts';
import { newRecordId } from '../core/ids.ts';
import type { ListStore } from '../lifecycle/lists.ts';
import { assetIdOf } from '../lifecycle/reports.ts';

const DISPUTE_STATUSES = ['OPEN', 'UPHELD', 'REJECTED'] as const;
type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export type Dispute = {
  id: string;
  /** As the requester sent it. */
  content: string;
  /** The canonical content: the check-index key an upheld dispute allowlists. */
  checkKey: string;
  type: AssetType;
  /** An e-mail address, or `organization:<slug>` for a dispute an organization's unblock filed. */
  requester: string;
  email?: string;
  organization?: string;
  description?: string;
  notes: string[];
  status: DisputeStatus;
  createdAt: string;
  resolvedAt?: string;
  resolutionNote?: string;
};

export type CreateOutcome = { created: true } | { created: false; existingId: string };

export interface DisputeStore {
  /** Writes a new dispute unless its requester already disputed its content; then names that dispute. */
  create(dispute: Dispute): Promise<CreateOutcome>;
  find(id: string): Promise<Dispute | undefined>;
  /** Every dispute, newest first (an operator's listing). */
  list(): Promise<Dispute[]>;
  /** Whether a dispute of this content is open. */
  isDisputed(checkKey: string): Promise<boolean>;
  /**
   * Closes an OPEN dispute, in one transaction; upholding it also allowlists its content for the
   * whole service (once per content) through the verdict change log. `stale`: it was not OPEN.
   */
  resolve(
    dispute: Dispute,
    status: Exclude<DisputeStatus, 'OPEN'>,
    at: string,
    note?: string,
  ): Promise<'resolved' | 'stale'>;
}

export type DisputeDeps = {
  disputes: DisputeStore;
  /** The asset check over uncached reads of the index: what the service and the external lists say now. */
  checker: Checker;
  lists: Pick<ListStore, 'byAsset'>;
  /** The e-mail address of a user, if the directory has one. */
  userEmail: (userId: string) => Promise<string | undefined>;
  suffixes: PublicSuffixes;
};

export const API_NOTE = 'Created through the API';
export const ETH_ONLY_NOTE =
  'Blocked only by eth-phishing-detect, not by this service: removal from that list is up to its maintainers';
const DUPLICATE = 'A dispute already exists for this asset with this email';

/** The content as a dispute keeps it; undefined when it is nothing the service can check. */
const canonicalOf = (suffixes: PublicSuffixes, content: string): { checkKey: string; type: AssetType } | undefined => {
  const type = detectAssetType(suffixes, content);
  const checkKey = type === undefined ? undefined : entryKeyOf(suffixes, content, type);
  return type === undefined || checkKey === undefined ? undefined : { checkKey, type };
};

const blockedByEthOnly = (result: CheckResult): boolean =>
  result.status === 'BLOCKED' &&
  result.source !== 'service' &&
  result.sources.some((report) => report.source === 'eth-phishing-detect' && report.status === 'BLOCKED');

/** Whether the service has anything on this content: a verdict of its own or of a list, or a record about it. */
const isKnown = async (deps: DisputeDeps, checkKey: string, result: CheckResult): Promise<boolean> => {
  if (result.status !== 'UNKNOWN') return true;
  return (await deps.lists.byAsset(assetIdOf(checkKey), 1)).length > 0;
};

type NewDispute = { content: string; email?: string; description?: string };

const fileDispute = async (
  deps: DisputeDeps,
  input: NewDispute & { requester: string; organization?: string },
  now: number,
): Promise<{ dispute: Dispute; outcome: CreateOutcome }> => {
  const canonical = canonicalOf(deps.suffixes, input.content);
  if (canonical === undefined) throw new NotFoundError('Asset not found');
  const result = await deps.checker.check(input.content);
  if (!(await isKnown(deps, canonical.checkKey, result))) throw new NotFoundError('Asset not found');
  const ethOnly = blockedByEthOnly(result);
  const dispute: Dispute = {
    id: String(newRecordId(now)),
    content: input.content,
    ...canonical,
    requester: input.requester,
    ...(input.email === undefined ? {} : { email: input.email }),
    ...(input.organization === undefined ? {} : { organization: input.organization }),
    ...(input.description === undefined ? {} : { description: input.description }),
    notes: ethOnly ? [API_NOTE, ETH_ONLY_NOTE] : [API_NOTE],
    status: 'OPEN',
    createdAt: new Date(now).toISOString(),
  };
  return { dispute, outcome: await deps.disputes.create(dispute) };
};

/**
 * `POST /dispute/create`: one dispute per e-mail address and canonical content. The address is
 * the body's, or the user's own for a user key. Content the service knows nothing about is 404.
 */
export const createDispute = async (deps: DisputeDeps, caller: Caller, input: NewDispute, now: number) => {
  const email = input.email ?? (caller.kind === 'user' ? await deps.userEmail(caller.userId) : undefined);
  if (email === undefined)
    throw new BadRequestError('email is required unless the API key belongs to a user with an email address');
  const requester = email.toLowerCase();
  const { dispute, outcome } = await fileDispute(deps, { ...input, email, requester }, now);
  if (!outcome.created) throw new BadRequestError(DUPLICATE);
  return {
    id: dispute.id,
    content: dispute.content,
    ...(dispute.notes.includes(ETH_ONLY_NOTE) ? { message: ETH_ONLY_NOTE } : {}),
  };
};

/** A dispute an organization files by asking to unblock content it does not block itself; a repeat names the first. */
export const disputeForOrganization = async (deps: DisputeDeps, orgId: string, content: string, now: number) => {
  const { dispute, outcome } = await fileDispute(
    deps,
    {
      content,
      requester: `organization:${orgId}`,
      organization: orgId,
      description: 'Unblock requested by the organization',
    },
    now,
  );
  return outcome.created ? dispute.id : outcome.existingId;
};

/** The operator's decision on a dispute (`npm run admin -- disputes uphold|reject <id>`). */
export const resolveDispute = async (
  disputes: DisputeStore,
  id: string,
  status: Exclude<DisputeStatus, 'OPEN'>,
  now: number,
  note?: string,
): Promise<Dispute> => {
  const dispute = await disputes.find(id);
  if (dispute === undefined) throw new NotFoundError(`Dispute ${id} not found`);
  if (dispute.status !== 'OPEN') throw new BadRequestError(`Dispute ${id} is already ${dispute.status}`);
  const at = new Date(now).toISOString();
  if ((await disputes.resolve(dispute, status, at, note)) === 'stale') {
    throw new BadRequestError(`Dispute ${id} was resolved meanwhile`);
  }
  return { ...dispute, status, resolvedAt: at, ...(note === undefined ? {} : { resolutionNote: note }) };
};
