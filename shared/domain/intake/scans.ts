import { NotFoundError, UnprocessableContentError } from '../../errors.ts';
import type { Caller } from '../account/access.ts';
import { actingOrganization } from '../account/access.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { AssetType } from '../allowlist/asset-types.ts';
import { type AssetStore, ownDomains } from '../allowlist/assets.ts';
import type { Checker, PublicSuffixes } from '../check/index.ts';
import { entryKeyOf } from '../check/index.ts';
import { newRecordIds } from '../core/ids.ts';
import { type CandidateDeps, feedPushSource } from '../detections/index.ts';
import { assetIdOf, createReport, type ReportDeps } from '../lifecycle/reports.ts';
import { brandProfile, type EngineResult, evaluateThreat } from '../threat-engine/engine.ts';

const SCAN_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
type ScanStatus = (typeof SCAN_STATUSES)[number];

/** `owner`: `org:<slug>` when an organization asked (its key, or a member's with `organizationSlug`), else `user:<id>`. */
export type Scan = {
  id: number;
  content: string;
  type: AssetType | null;
  checkKey: string | null;
  owner: string;
  organization?: string;
  status: ScanStatus;
  result: EngineResult | null;
  createdAt: string;
  completedAt: string | null;
  /** `submit`: pushed with `/asset/submit`, so an `EXTERNAL` detection of its organization too. */
  origin?: 'submit' | 'scan';
};

export interface ScanStore {
  /** Writes new PENDING scans (each once, by id). */
  create(scans: readonly Scan[]): Promise<void>;
  find(id: number): Promise<Scan | undefined>;
  /** Records a scan's result; false when it was no longer PENDING (another run finished it). */
  complete(id: number, result: EngineResult, at: string): Promise<boolean>;
  /** Takes the one automatic report of a content for an organization; false when it was taken already. */
  claimReport(orgId: string, checkKey: string, scanId: number): Promise<boolean>;
  releaseReport(orgId: string, checkKey: string): Promise<void>;
}

/** Hands scans to the worker: SQS in AWS, the same process locally; either way the request does not wait. */
export interface ScanQueue {
  send(scanIds: readonly number[]): Promise<void>;
}

export type IntakeDeps = {
  scans: ScanStore;
  queue: ScanQueue;
  directory: Pick<DirectoryStore, 'findMembership'>;
  suffixes: PublicSuffixes;
};

const SCAN_ACCESS = 'scans';

/** The canonical content of a submission and its stable asset id (by canonical content, or by the trimmed text when it is no asset). */
const identify = (suffixes: PublicSuffixes, content: string) => {
  const type = detectAssetType(suffixes, content) ?? null;
  const checkKey = (type === null ? undefined : entryKeyOf(suffixes, content, type)) ?? null;
  return { type, checkKey, assetId: assetIdOf(checkKey ?? content.trim().toLowerCase()) };
};

const ownerOf = async (deps: IntakeDeps, caller: Caller, organizationSlug: string | undefined) => {
  if (caller.kind === 'organization' || organizationSlug !== undefined) {
    const organization = await actingOrganization(deps.directory, caller, organizationSlug, SCAN_ACCESS);
    return { owner: `org:${organization}`, organization };
  }
  return { owner: `user:${caller.userId}` };
};

const newScans = (
  suffixes: PublicSuffixes,
  contents: readonly string[],
  owner: { owner: string; organization?: string },
  now: number,
  origin: Scan['origin'],
): Scan[] => {
  const ids = newRecordIds(contents.length, now);
  return contents.map((content, i) => {
    const { type, checkKey } = identify(suffixes, content);
    return {
      id: ids[i] as number,
      content,
      type,
      checkKey,
      ...owner,
      status: 'PENDING',
      result: null,
      createdAt: new Date(now).toISOString(),
      completedAt: null,
      origin,
    };
  });
};

const startScans = async (deps: IntakeDeps, scans: Scan[]) => {
  await deps.scans.create(scans);
  await deps.queue.send(scans.map((scan) => scan.id));
};

/**
 * `POST /asset/submit`: every asset's stable id (the same canonical content always gets the same),
 * in input order; with `organizationSlug`, a scan of each for that organization, started at once
 * (`scanId`) and run by the queue's worker.
 */
export const submitAssets = async (
  deps: IntakeDeps,
  caller: Caller,
  body: { assets: readonly string[]; organizationSlug?: string },
  now: number,
) => {
  const identified = body.assets.map((asset) => ({ asset, assetId: identify(deps.suffixes, asset).assetId }));
  if (body.organizationSlug === undefined) return { submittedAssets: identified };
  const scans = newScans(deps.suffixes, body.assets, await ownerOf(deps, caller, body.organizationSlug), now, 'submit');
  await startScans(deps, scans);
  return { submittedAssets: identified.map((entry, i) => ({ ...entry, scanId: (scans[i] as Scan).id })) };
};

/** `POST /asset/scan`: one scan, PENDING until the worker ran it. */
export const startScan = async (
  deps: IntakeDeps,
  caller: Caller,
  body: { content: string; organizationSlug?: string },
  now: number,
) => {
  const [scan] = newScans(
    deps.suffixes,
    [body.content],
    await ownerOf(deps, caller, body.organizationSlug),
    now,
    'scan',
  ) as [Scan];
  await startScans(deps, [scan]);
  return { scanId: scan.id, status: scan.status, content: scan.content };
};

/** Whether the caller may read a scan: its organization's key, or a user who started it or is an active member of its organization. */
const mayRead = async (deps: Pick<IntakeDeps, 'directory'>, caller: Caller, scan: Scan): Promise<boolean> => {
  if (caller.kind === 'organization') return scan.owner === `org:${caller.orgId}`;
  if (scan.owner === `user:${caller.userId}`) return true;
  if (scan.organization === undefined) return false;
  return (await deps.directory.findMembership(caller.userId, scan.organization))?.status === 'ACTIVE';
};

/** `POST /scan/result`: a scan of the caller's; anyone else's is 404, as an unknown one. */
export const scanResult = async (deps: Pick<IntakeDeps, 'scans' | 'directory'>, caller: Caller, scanId: number) => {
  const scan = await deps.scans.find(scanId);
  if (scan === undefined || !(await mayRead(deps, caller, scan))) throw new NotFoundError('Scan not found');
  return {
    scanId: scan.id,
    status: scan.status,
    content: scan.content,
    type: scan.type,
    result: scan.result,
    createdAt: scan.createdAt,
    completedAt: scan.completedAt,
  };
};

export type WorkerDeps = {
  scans: ScanStore;
  /** The asset check over uncached index reads. */
  checker: Checker;
  directory: Pick<DirectoryStore, 'listBrands'>;
  assets: Pick<AssetStore, 'list'>;
  reports: ReportDeps;
  /** Whether an open dispute of the content exists. */
  isDisputed: (checkKey: string) => Promise<boolean>;
  /** The detection pipeline the organization's push sources feed; none, no detections. */
  detections?: CandidateDeps;
  suffixes: PublicSuffixes;
};

type BrandTerms = { slug: string; name: string; includedTerms?: string[]; excludedTerms?: string[] };

/**
 * Files the one automatic report of a MALICIOUS content for the scan's organization: its mark is
 * taken first, so two scans of the same content file one report; a report the lifecycle refuses
 * (the content is already blocked, or awaits review) needs none, and keeps the mark.
 */
const fileReport = async (
  deps: WorkerDeps,
  scan: Scan,
  orgId: string,
  checkKey: string,
  result: EngineResult,
  now: number,
) => {
  if (!(await deps.scans.claimReport(orgId, checkKey, scan.id))) return;
  const disputed = await deps.isDisputed(checkKey);
  const signals = result.signals.map((signal) => `${signal.name} (${signal.weight}): ${signal.detail}`).join('; ');
  try {
    await createReport(
      deps.reports,
      orgId,
      {
        title: `Scan ${scan.id}: ${result.verdict} (score ${result.score})`,
        description: `${disputed ? 'The content is disputed: review it by hand. ' : ''}Signals: ${signals}`,
        assets: [{ content: scan.content, status: 'BLOCKED' }],
      },
      { now: new Date(now).toISOString() },
    );
  } catch (error) {
    if (error instanceof UnprocessableContentError) return;
    await deps.scans.releaseReport(orgId, checkKey);
    throw error;
  }
};

/**
 * The worker's run of one scan: the engine's verdict from the check's answer, the organization's
 * brands and own domains; a MALICIOUS result for an organization files its report. A scan that is
 * no longer PENDING is left alone, so a message delivered twice does nothing the second time.
 */
export const runScan = async (deps: WorkerDeps, scanId: number, now: number): Promise<void> => {
  const scan = await deps.scans.find(scanId);
  if (scan?.status !== 'PENDING') return;
  const orgId = scan.organization;
  const [known, brands, domains] = await Promise.all([
    deps.checker.check(scan.content),
    orgId === undefined ? [] : deps.directory.listBrands(orgId),
    orgId === undefined ? [] : ownDomains(deps.suffixes, deps.assets, orgId),
  ]);
  const profile = brandProfile(orgId ?? '', brands as BrandTerms[], domains);
  const result = evaluateThreat(deps.suffixes, scan.content, profile, { status: known.status, source: known.source });
  if (result.verdict === 'MALICIOUS' && orgId !== undefined && scan.checkKey !== null) {
    await fileReport(deps, scan, orgId, scan.checkKey, result, now);
  }
  if (deps.detections !== undefined && orgId !== undefined && scan.checkKey !== null) {
    const reason = scan.origin === 'submit' ? 'submitted with /asset/submit' : 'scanned with /asset/scan';
    const candidate = [{ content: scan.content, reason }];
    if (scan.origin === 'submit') await feedPushSource(deps.detections, orgId, 'EXTERNAL', candidate, now);
    if (known.status === 'UNKNOWN') await feedPushSource(deps.detections, orgId, 'ASSET_CHECK', candidate, now);
  }
  await deps.scans.complete(scan.id, result, new Date(now).toISOString());
};
