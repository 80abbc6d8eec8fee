import { readFileSync } from 'node:fs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { shippedSuffixes } from '../../shared/db/adapters/public-suffix-file.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { createReport } from '../../shared/domain/lifecycle/reports.ts';
import { reviewProposal } from '../../shared/domain/lifecycle/reviews.ts';
import { reportBody, reviewBody } from '../../shared/http/lifecycle-schemas.ts';

export const LIFECYCLE_USAGE = `  report create <org> <json-file|->     file a report as the API does: {"title","description","assets":[{"content"}]}
  proposal review <org> <proposalId> '<json>'   review as the API does, e.g.
                                       '{"assetId":123,"decision":"APPROVE","label":"General Phishing"}'`;

const parse = <S extends v.GenericSchema>(schema: S, text: string, what: string): v.InferOutput<S> => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new Error(`${what} is not valid JSON`, { cause });
  }
  const result = v.safeParse(schema, json);
  if (!result.success) throw new Error(`${what}: ${result.issues.map((issue) => issue.message).join('; ')}`);
  return result.output;
};

/** `npm run admin -- report create …` and `proposal review …`: the lifecycle's domain functions, as the API runs them. */
export const lifecycleCommand = async (db: DynamoDBDocumentClient, table: string, words: string[]) => {
  const store = activityRepository(db, table);
  const verdicts = checkIndexRepository(db, table, { ttlMs: 0 });
  const directory = directoryRepository(db, table);
  const [noun, verb, orgId, target, json] = words;
  if (noun === 'report' && verb === 'create' && orgId && target) {
    const { organizationSlug: _, ...report } = parse(
      reportBody,
      readFileSync(target === '-' ? 0 : target, 'utf8'),
      'The report',
    );
    const deps = { store, verdicts, directory, ignoredHosts: [], suffixes: shippedSuffixes() };
    const created = await createReport(deps, orgId, report, { now: new Date().toISOString() });
    return JSON.stringify(created, null, 2);
  }
  if (noun === 'proposal' && verb === 'review' && orgId && target && json && /^[1-9]\d{0,15}$/.test(target)) {
    const input = parse(reviewBody, json, 'The review');
    const deps = { store, verdicts, directory, dailyLimit: 0, suffixes: shippedSuffixes() };
    return JSON.stringify(await reviewProposal(deps, orgId, Number(target), input, Date.now()), null, 2);
  }
  throw new Error(`Usage:\n${LIFECYCLE_USAGE}`);
};
