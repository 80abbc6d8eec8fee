import { randomUUID } from 'node:crypto';
import { UnprocessableContentError } from '../../errors.ts';
import { entryKeyOf } from '../check/index.ts';
import { createReport, type ReportAssetError, type ReportDeps } from '../lifecycle/reports.ts';
import type { StoredStatus, TaxiiStore } from './collections.ts';
import { contentOfPattern } from './stix.ts';

export type SubmissionDeps = ReportDeps & { taxii: TaxiiStore };

type Outcome = { id: string; version: string; message?: string };
type Candidate = { id: string; version: string; content: string };

const INDICATOR_ID = /^indicator--[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** An object of the envelope as a candidate proposal, or why it cannot be one. */
const read = (object: unknown): Candidate | Outcome => {
  const fields = typeof object === 'object' && object !== null ? (object as Record<string, unknown>) : {};
  const id = typeof fields.id === 'string' ? fields.id : '';
  const version = typeof fields.modified === 'string' ? fields.modified : '';
  if (fields.type !== 'indicator') return { id, version, message: 'Only indicators are accepted' };
  if (!INDICATOR_ID.test(id)) return { id, version, message: 'id must be indicator--<UUID>' };
  if (!TIMESTAMP.test(version)) return { id, version, message: 'modified must be a STIX timestamp' };
  if (fields.revoked === true) return { id, version, message: 'A revoked indicator proposes nothing' };
  const content =
    fields.pattern_type === 'stix' && typeof fields.pattern === 'string' ? contentOfPattern(fields.pattern) : undefined;
  if (content === undefined) {
    return {
      id,
      version,
      message:
        "Unsupported pattern: [domain-name:value = '…'], [url:value = '…'], [email-addr:value = '…'] or [cryptocurrency-wallet:value = '…'] (pattern_type stix)",
    };
  }
  return { id, version, content };
};

const errorsOf = (error: unknown): ReportAssetError[] | undefined =>
  error instanceof UnprocessableContentError
    ? ((error.data?.errors as ReportAssetError[] | undefined) ?? undefined)
    : undefined;

/**
 * Objects posted to the submissions collection, processed at once: every indicator with a supported
 * pattern becomes a proposal of one new report of the organization, checked as `/report/create`
 * checks (an indicator whose content fails is a failure, and the rest are proposed without it).
 * An object already accepted (same id and `modified`) is a success that writes nothing; when no
 * object is new and valid, no report is written. The status resource is kept for `GET status/{id}/`.
 */
export const submitObjects = async (
  deps: SubmissionDeps,
  orgId: string,
  objects: readonly unknown[],
  now: string,
): Promise<StoredStatus> => {
  const failures: Outcome[] = [];
  const successes: Outcome[] = [];
  const candidates: Candidate[] = [];
  for (const object of objects) {
    const one = read(object);
    if ('content' in one) candidates.push(one);
    else failures.push(one);
  }
  const seen = await deps.taxii.submitted(
    orgId,
    candidates.map(({ id, version }) => ({ id, modified: version })),
  );
  let fresh: Candidate[] = [];
  const contents = new Map<string, Candidate>();
  for (const candidate of candidates) {
    const pair = `${candidate.id}\n${candidate.version}`;
    const same = fresh.find((other) => `${other.id}\n${other.version}` === pair);
    const contentKey = entryKeyOf(deps.suffixes, candidate.content) ?? candidate.content;
    if (seen.has(pair) || same) successes.push({ id: candidate.id, version: candidate.version });
    else if (contents.has(contentKey)) {
      failures.push({
        id: candidate.id,
        version: candidate.version,
        message: 'Another object of this envelope names the same content',
      });
    } else {
      contents.set(contentKey, candidate);
      fresh.push(candidate);
    }
  }
  while (fresh.length > 0) {
    const report = {
      title: 'TAXII submission',
      description: `Indicators added to the submissions collection (${fresh.length})`,
      assets: fresh.map(({ content }) => ({ content, status: 'BLOCKED' as const })),
    };
    try {
      await createReport(deps, orgId, report, { now });
      await deps.taxii.markSubmitted(
        orgId,
        fresh.map(({ id, version }) => ({ id, modified: version })),
      );
      successes.push(...fresh.map(({ id, version }) => ({ id, version })));
      break;
    } catch (error) {
      const errors = errorsOf(error);
      if (errors === undefined) throw error;
      const failed = new Map(errors.map((one) => [one.asset, one.message]));
      if (!fresh.some(({ content }) => failed.has(content))) throw error;
      failures.push(
        ...fresh.flatMap(({ id, version, content }) => {
          const message = failed.get(content);
          return message === undefined ? [] : [{ id, version, message }];
        }),
      );
      fresh = fresh.filter(({ content }) => !failed.has(content));
    }
  }
  const status: StoredStatus = {
    id: randomUUID(),
    status: 'complete',
    request_timestamp: now,
    total_count: objects.length,
    success_count: successes.length,
    ...(successes.length === 0 ? {} : { successes }),
    failure_count: failures.length,
    ...(failures.length === 0 ? {} : { failures }),
    pending_count: 0,
  };
  await deps.taxii.putStatus(orgId, status);
  return status;
};
