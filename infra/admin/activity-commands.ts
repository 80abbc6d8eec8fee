import { readFileSync } from 'node:fs';
import { shippedSuffixes } from '../../shared/db/adapters/public-suffix-file.ts';
import type { PublicSuffixes } from '../../shared/domain/check/index.ts';
import {
  ACTIVITY_KINDS,
  type ActivityChange,
  type ActivityKind,
  type ActivityRef,
  type ActivityStore,
  type ApplyResult,
  applyActivities,
  deleteActivity,
  describeRef,
  parseActivityChange,
  updateActivity,
} from '../../shared/domain/lifecycle/activity.ts';
import { withBackingReports } from '../../shared/domain/lifecycle/backing-reports.ts';
import { AppError } from '../../shared/errors.ts';

export const ACTIVITY_USAGE = `  activity record <json-file|->        apply changes: one change, an array of them, or a fixture's "activity"
  activity update '<json>'             change fields of a recorded record, e.g.
                                       '{"organization":"acme","kind":"threat","id":"t-1","status":"REJECTED"}'
                                       (updatedAt defaults to now)
  activity delete <org> <report|threat|takedown> <id> [updatedAt]   soft delete (updatedAt defaults to now)
  activity show <org> <report|threat|takedown> <id>                 print the stored state`;

const fail = (message: string): never => {
  throw new Error(`${message}\n\nUsage:\n${ACTIVITY_USAGE}`);
};

/** Validation errors name every field at fault, not just the first. */
const explain = (error: unknown, where: string): never => {
  if (error instanceof AppError && error.issues.length > 0) {
    const details = error.issues.map((issue) => `${issue.path ?? '(change)'}: ${issue.message}`).join('; ');
    throw new Error(`${where}: ${details}`, { cause: error });
  }
  throw error;
};

const parseJson = (text: string, what: string): unknown => {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new Error(`${what} is not valid JSON`, { cause });
  }
};

const refOf = (organization: string | undefined, kind: string | undefined, id: string | undefined): ActivityRef => {
  if (!organization || !kind || !id) return fail('Give the organization, kind and id of the record');
  if (!ACTIVITY_KINDS.includes(kind as ActivityKind)) return fail(`Unknown kind ${kind}`);
  return { organization, kind: kind as ActivityKind, id };
};

const report = (result: ApplyResult, change: ActivityChange): void => {
  const what = `${describeRef(change)} as of ${change.updatedAt}${change.deleted ? ' (deleted)' : ''}`;
  console.log(
    result === 'applied' ? `applied  ${what}` : `ignored  ${what}: the stored record is already as new or newer`,
  );
};

const record = async (suffixes: PublicSuffixes, store: ActivityStore, source: string | undefined) => {
  if (!source) return fail('Give a JSON file, or - for standard input');
  const text = readFileSync(source === '-' ? 0 : source, 'utf8');
  const json = parseJson(text, source === '-' ? 'Standard input' : source);
  const entries = Array.isArray(json)
    ? json
    : typeof json === 'object' && json !== null && 'activity' in json && Array.isArray(json.activity)
      ? json.activity
      : [json];
  // Every entry is checked before any is applied, so a typo does not leave half a file behind.
  const changes = entries.map((entry: unknown, index: number) => {
    try {
      return parseActivityChange(entry);
    } catch (error) {
      return explain(error, `Change ${index + 1} of ${entries.length}`);
    }
  });
  const all = withBackingReports(suffixes, changes);
  const totals = await applyActivities(suffixes, store, all, { onResult: report });
  console.log(`${all.length} changes: ${totals.applied} applied, ${totals.ignored} ignored`);
};

const update = async (suffixes: PublicSuffixes, store: ActivityStore, text: string | undefined) => {
  if (!text) return fail('Give the change as JSON');
  const json = parseJson(text, 'The change');
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return fail('The change must be a JSON object');
  const { organization, kind, id, ...changes } = json as Record<string, unknown>;
  const ref = refOf(organization as string | undefined, kind as string | undefined, id as string | undefined);
  const { result, change } = await updateActivity(suffixes, store, ref, changes, new Date().toISOString()).catch(
    (error) => explain(error, describeRef(ref)),
  );
  report(result, change);
};

/** `npm run admin -- activity …`: record, update, soft-delete and show activity records. */
export async function activityCommand(args: string[], store: ActivityStore): Promise<void> {
  const [verb, ...rest] = args;
  const suffixes = shippedSuffixes();
  switch (verb) {
    case 'record':
      return record(suffixes, store, rest[0]);
    case 'update':
      return update(suffixes, store, rest[0]);
    case 'delete': {
      const ref = refOf(rest[0], rest[1], rest[2]);
      const { result, change } = await deleteActivity(suffixes, store, ref, rest[3] ?? new Date().toISOString()).catch(
        (error) => explain(error, describeRef(ref)),
      );
      return report(result, change);
    }
    case 'show': {
      const ref = refOf(rest[0], rest[1], rest[2]);
      const stored = await store.find(ref);
      if (!stored) return fail(`No ${describeRef(ref)} has been recorded`);
      console.log(JSON.stringify(stored, null, 2));
      return;
    }
    default:
      return fail(verb ? `Unknown activity command: ${verb}` : 'Missing activity command');
  }
}
