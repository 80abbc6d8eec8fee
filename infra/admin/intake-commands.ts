import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { disputeRepository } from '../../shared/db/dispute-repository.ts';
import { resolveDispute } from '../../shared/domain/intake/disputes.ts';

export const INTAKE_USAGE = `  disputes list                        every dispute, newest first
  disputes uphold <id> [--note <text>] allowlist the disputed content for the whole service (ALLOWED in every check)
  disputes reject <id> [--note <text>] close the dispute; the content keeps its verdict`;

/** `npm run admin -- disputes …`: the operator's review of disputed verdicts. */
export const disputesCommand = async (
  db: DynamoDBDocumentClient,
  table: string,
  words: string[],
  note: string | undefined,
) => {
  const disputes = disputeRepository(db, table);
  const [, verb, id] = words;
  if (verb === 'list' && id === undefined) return JSON.stringify(await disputes.list(), null, 2);
  if ((verb === 'uphold' || verb === 'reject') && id !== undefined && /^\d{1,20}$/.test(id)) {
    const status = verb === 'uphold' ? 'UPHELD' : 'REJECTED';
    return JSON.stringify(await resolveDispute(disputes, id, status, Date.now(), note), null, 2);
  }
  throw new Error(`Usage:\n${INTAKE_USAGE}`);
};
