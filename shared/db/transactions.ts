import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ServiceUnavailableError } from '../errors.ts';
import { recordTransactionConflict } from '../metrics.ts';
import { timeLeft } from './deadline.ts';

/** One entry of a TransactWriteItems request (document-client form). */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** The items of one transaction by name; an undefined entry is left out. */
export type NamedItems = Record<string, TransactItem | undefined>;

/** The conditions of these named items failed, and the caller did not declare them retryable (or retries ran out). */
export class ConditionsFailedError extends Error {
  override name = 'ConditionsFailedError';
  readonly failed: ReadonlySet<string>;
  constructor(failed: ReadonlySet<string>, options: ErrorOptions) {
    super(`Transaction conditions failed: ${[...failed].join(', ')}`, options);
    this.failed = failed;
  }
}

/** The names whose condition failed, if `error` is a ConditionsFailedError; empty otherwise. */
export const failedConditions = (error: unknown): ReadonlySet<string> =>
  error instanceof ConditionsFailedError ? error.failed : new Set();

export type TransactOptions = {
  /** Names whose failed condition means "read again and rebuild", such as an optimistic version check. */
  retryOn?: readonly string[];
  maxAttempts?: number;
  /**
   * No retry starts once this many milliseconds have passed since the first attempt, nor past the
   * request's deadline (deadline.ts), whichever comes first.
   */
  budgetMs?: number;
};

const MAX_ITEMS = 100;
const DEFAULT_ATTEMPTS = 12;
/**
 * Leaves a request, in a 10 s function, room for its reads and its answer: a write that other
 * writers keep from committing for this long answers 503 with `Retry-After` instead of holding on.
 */
const TRANSACTION_BUDGET_MS = 2500;

/** Full-jitter exponential backoff before retry `attempt` (1-based), capped at 250 ms. */
const backoff = (attempt: number): number => Math.random() * Math.min(250, 10 * 2 ** attempt);

/**
 * Writes the items `build` returns in one transaction (none: nothing to write). It retries, with a fresh `build`, when another
 * transaction conflicted or only `retryOn` conditions failed; `build` is told every name whose condition
 * failed on an earlier attempt. Any other failed condition throws ConditionsFailedError naming them all.
 * Retries that run out (`maxAttempts`, or a pause that would end past `budgetMs`) throw ServiceUnavailableError:
 * the items are contended, and the client may try again later.
 */
export const transactWithRetry = async (
  db: DynamoDBDocumentClient,
  build: (failedBefore: ReadonlySet<string>) => NamedItems | Promise<NamedItems>,
  { retryOn = [], maxAttempts = DEFAULT_ATTEMPTS, budgetMs = TRANSACTION_BUDGET_MS }: TransactOptions = {},
): Promise<void> => {
  const deadline = Date.now() + Math.min(budgetMs, timeLeft());
  const failedBefore = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const named = Object.entries(await build(failedBefore)).filter(
      (entry): entry is [string, TransactItem] => entry[1] !== undefined,
    );
    if (named.length === 0) return;
    if (named.length > MAX_ITEMS) {
      throw new Error(`A transaction of ${named.length} items exceeds DynamoDB's limit of ${MAX_ITEMS}`);
    }
    try {
      await db.send(new TransactWriteCommand({ TransactItems: named.map(([, item]) => item) }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      const failed = new Set(named.filter((_, i) => codes[i] === 'ConditionalCheckFailed').map(([name]) => name));
      const retryable = [...failed].every((name) => retryOn.includes(name));
      const conflicted = codes.includes('TransactionConflict');
      if (conflicted) recordTransactionConflict();
      if (failed.size > 0 && !retryable) throw new ConditionsFailedError(failed, { cause: error });
      if (failed.size === 0 && !conflicted) throw error;
      const pause = backoff(attempt);
      if (attempt >= maxAttempts || Date.now() + pause >= deadline) {
        throw new ServiceUnavailableError('The data store is busy with other writes to the same items', {
          cause: error,
        });
      }
      for (const name of failed) failedBefore.add(name);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
};
