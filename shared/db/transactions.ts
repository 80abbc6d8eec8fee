import { changeWriter, record, refuse, retry, type TransactItem, type Write } from './change-set.ts';

export type { TransactItem } from './change-set.ts';

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

export type TransactOptions = { retryOn?: readonly string[]; maxAttempts?: number; budgetMs?: number };

/**
 * @deprecated Items named by strings: declare a change-set (`changeWriter` in change-set.ts), whose
 * changes say themselves whether a failed condition rebuilds or refuses.
 */
export const transactWithRetry = async (
  db: Parameters<typeof changeWriter>[0],
  build: (failedBefore: ReadonlySet<string>) => NamedItems | Promise<NamedItems>,
  { retryOn = [], ...options }: TransactOptions = {},
): Promise<void> => {
  // Each item names its own table, which the writer keeps.
  const outcome = await changeWriter(db, '').commit<string, string>(async (failedBefore) => {
    const named = Object.entries(await build(failedBefore)).filter(
      (entry): entry is [string, TransactItem] => entry[1] !== undefined,
    );
    return named.map(([name, item]) => record(item as Write, retryOn.includes(name) ? retry(name) : refuse(name)));
  }, options);
  if (!outcome.committed) throw new ConditionsFailedError(new Set(outcome.reasons), {});
};
