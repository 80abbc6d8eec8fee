import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { timeLeft } from '../deadline.ts';
import { type Backoff, retry as withRetries } from '../domain/core/retry.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { recordTransactionConflict } from '../metrics.ts';
import type { Key } from './keys.ts';
import { TRANSACTION_ITEMS } from './limits.ts';
import type { TransactItem } from './transactions.ts';
import { type VerdictDelta, verdictChange } from './verdict-change.ts';

export type { TransactItem } from './transactions.ts';

type Bare<T> = Omit<NonNullable<T>, 'TableName'>;
/** One write of a change, without its table (the compiler adds it). */
export type Write =
  | { Put: Bare<TransactItem['Put']> }
  | { Update: Bare<TransactItem['Update']> }
  | { Delete: Bare<TransactItem['Delete']> }
  | { ConditionCheck: Bare<TransactItem['ConditionCheck']> };

/**
 * What a change's failed condition means. `retry`: another writer moved what the set was built
 * from; the set is built again, and the builder is told `tag`. `refuse`: the change cannot be made;
 * nothing is written and the commit answers `reason`. A change that declares neither has a
 * condition that must hold: its failure throws ConditionsFailedError.
 */
export type OnFailed<R, T> = { retry: T } | { refuse: R };
export const retry = <const T>(tag: T): { retry: T } => ({ retry: tag });
export const refuse = <const R>(reason: R): { refuse: R } => ({ refuse: reason });

/**
 * One change of a change-set:
 * - `record`: any write of one item (a put, update, delete or condition check) with its condition;
 * - `counter`: adds each delta to an attribute of one item; a decrement requires the counter to
 *   hold at least as much, so no counter goes below zero;
 * - `claim`: an item at most one writer creates (a uniqueness claim); `release` deletes one;
 * - `verdicts`: changes of check-index counters with their verdict-log entries (two items per
 *   entry that changes). A concurrent change of the same entry always rebuilds the set; a change
 *   that would take a counter below zero fails with `onFloor`.
 */
export type Change<R = never, T = never> =
  | { kind: 'record'; write: Write; onFailed?: OnFailed<R, T> }
  | { kind: 'counter'; key: Key; deltas: Readonly<Record<string, number>>; onFailed?: OnFailed<R, T> }
  | { kind: 'claim'; key: Key; item?: Readonly<Record<string, unknown>>; onFailed?: OnFailed<R, T> }
  | { kind: 'release'; key: Key }
  | { kind: 'verdicts'; deltas: readonly VerdictDelta[]; now?: () => number; onFloor?: OnFailed<R, T> };

/** What is written in one transaction: all of it or nothing. */
export type ChangeSet<R = never, T = never> = readonly Change<R, T>[];

export const record = <R = never, T = never>(write: Write, onFailed?: OnFailed<R, T>): Change<R, T> => ({
  kind: 'record',
  write,
  ...(onFailed === undefined ? {} : { onFailed }),
});
export const counter = <R = never, T = never>(
  key: Key,
  deltas: Readonly<Record<string, number>>,
  onFailed?: OnFailed<R, T>,
): Change<R, T> => ({ kind: 'counter', key, deltas, ...(onFailed === undefined ? {} : { onFailed }) });
export const claim = <R = never, T = never>(
  key: Key,
  item: Readonly<Record<string, unknown>>,
  onFailed?: OnFailed<R, T>,
): Change<R, T> => ({ kind: 'claim', key, item, ...(onFailed === undefined ? {} : { onFailed }) });
export const release = (key: Key): Change<never, never> => ({ kind: 'release', key });
export const verdicts = <R = never, T = never>(
  deltas: readonly VerdictDelta[],
  options: { now?: () => number; onFloor?: OnFailed<R, T> } = {},
): Change<R, T> => ({ kind: 'verdicts', deltas, ...options });

/** The check-index entries a verdicts change moves: those whose counters add up to a change. */
const movedEntries = (deltas: readonly VerdictDelta[]): number => {
  const sums = new Map<string, [number, number, number]>();
  for (const { checkKey, allow = 0, block = 0, watch = 0 } of deltas) {
    const sum = sums.get(checkKey) ?? [0, 0, 0];
    sums.set(checkKey, [sum[0] + allow, sum[1] + block, sum[2] + watch]);
  }
  return [...sums.values()].filter((sum) => sum.some((n) => n !== 0)).length;
};

/** Items a change takes in a transaction. */
const itemsOf = (change: Change<unknown, unknown>): number =>
  change.kind === 'verdicts' ? 2 * movedEntries(change.deltas) : 1;

/** Items a change-set takes in its transaction, known before anything is read. */
export const sizeOf = (changes: ChangeSet<unknown, unknown>): number =>
  changes.reduce((sum, change) => sum + itemsOf(change), 0);

/** `ADD` for every delta; a decrement also requires the counter to hold at least that much. */
export const counterExpression = (deltas: Readonly<Record<string, number>>) => {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const adds: string[] = [];
  const floors: string[] = [];
  Object.entries(deltas).forEach(([name, delta], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = delta;
    adds.push(`#a${i} :a${i}`);
    if (delta < 0) {
      values[`:f${i}`] = -delta;
      floors.push(`#a${i} >= :f${i}`);
    }
  });
  return {
    UpdateExpression: `ADD ${adds.join(', ')}`,
    ...(floors.length > 0 ? { ConditionExpression: floors.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};

/** What a compiled item's failed condition means: the change's own, or (verdicts) a rebuild. */
type Meaning<R, T> = OnFailed<R, T> | 'rebuild' | undefined;
type Compiled<R, T> = { item: TransactItem; meaning: Meaning<R, T>; describe: string };

/** A write that already names its table keeps it. */
const withTable = (table: string, write: Write): TransactItem => {
  if ('Put' in write) return { Put: { TableName: table, ...write.Put } };
  if ('Update' in write) return { Update: { TableName: table, ...write.Update } };
  if ('Delete' in write) return { Delete: { TableName: table, ...write.Delete } };
  return { ConditionCheck: { TableName: table, ...write.ConditionCheck } };
};

const keyOf = (write: Write): string => {
  const op =
    'Put' in write
      ? write.Put.Item
      : 'Update' in write
        ? write.Update.Key
        : 'Delete' in write
          ? write.Delete.Key
          : write.ConditionCheck.Key;
  return `${String(op?.PK)} ${String(op?.SK)}`;
};

const compile = async <R, T>(
  db: DynamoDBDocumentClient,
  table: string,
  changes: ChangeSet<R, T>,
): Promise<Compiled<R, T>[]> => {
  const compiled: Compiled<R, T>[] = [];
  for (const change of changes) {
    switch (change.kind) {
      case 'record':
        compiled.push({
          item: withTable(table, change.write),
          meaning: change.onFailed,
          describe: `record ${keyOf(change.write)}`,
        });
        break;
      case 'counter':
        compiled.push({
          item: { Update: { TableName: table, Key: change.key, ...counterExpression(change.deltas) } },
          meaning: change.onFailed,
          describe: `counter ${change.key.PK} ${change.key.SK}`,
        });
        break;
      case 'claim':
        compiled.push({
          item: {
            Put: {
              TableName: table,
              Item: { ...change.item, ...change.key },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          meaning: change.onFailed,
          describe: `claim ${change.key.PK} ${change.key.SK}`,
        });
        break;
      case 'release':
        compiled.push({
          item: { Delete: { TableName: table, Key: change.key } },
          meaning: undefined,
          describe: `release ${change.key.PK} ${change.key.SK}`,
        });
        break;
      case 'verdicts': {
        for (const { kind, item } of await verdictChange(db, table, change.deltas, change.now)) {
          const meaning = kind === 'entry' ? 'rebuild' : kind === 'floor' ? change.onFloor : undefined;
          compiled.push({ item, meaning, describe: `verdict ${kind}` });
        }
        break;
      }
    }
  }
  return compiled;
};

/** Conditions that must hold failed: the data disagree with what the writer knows of them. */
export class ConditionsFailedError extends Error {
  override name = 'ConditionsFailedError';
  readonly failed: readonly string[];
  constructor(failed: readonly string[], options: ErrorOptions) {
    super(`Transaction conditions failed: ${failed.join(', ')}`, options);
    this.failed = failed;
  }
}

/** A change-set too large for one transaction, declared atomic. */
export class ChangeSetTooLargeError extends Error {
  override name = 'ChangeSetTooLargeError';
}

/** The outcome of a commit: written, or refused with the reasons of the changes that failed, in set order. */
export type Outcome<R> = { committed: true } | { committed: false; refused: R; reasons: readonly R[] };
const COMMITTED: Outcome<never> = { committed: true };

export type CommitOptions = {
  maxAttempts?: number;
  /**
   * No retry starts once this many milliseconds have passed since the first attempt, nor past the
   * request's deadline, whichever comes first.
   */
  budgetMs?: number;
};

const DEFAULT_ATTEMPTS = 12;
/**
 * Leaves a request, in a 10 s function, room for its reads and its answer: a write that other
 * writers keep from committing for this long answers 503 with `Retry-After` instead of holding on.
 */
const TRANSACTION_BUDGET_MS = 2500;

/** Full jitter, so writers that collided spread apart: up to 20, 40, 80 … ms, never more than 250. */
const BACKOFF: Backoff = { firstMs: 20, capMs: 250, jitter: 'full' };

/** A transaction that another one, or a `retry` change, kept from committing: worth building again. */
class Contended extends Error {
  constructor(readonly cancelled: TransactionCanceledException) {
    super(cancelled.message);
  }
}

/** Where a part stands in a sequence: the only one, or the first, a middle or the last of several. */
export type PartPosition = 'whole' | 'first' | 'middle' | 'last';
export type PartPlan = { start: number; end: number; position: PartPosition };

/**
 * Cuts `count` units into parts of at most TRANSACTION_ITEMS items each, in order: one `whole` part when
 * everything fits, otherwise a `first`, as many `middle` and one `last` part. `part` declares the
 * changes of units `[start, end)` at a position (a part's fixed changes, such as a record opened
 * by the first part and closed by the last, depend on it). Each part is as long as fits at any
 * position, so where a part falls in the sequence never changes where it is cut.
 */
export const planParts = (
  count: number,
  part: (start: number, end: number, position: PartPosition) => ChangeSet<unknown, unknown>,
): PartPlan[] => {
  const fits = (start: number, end: number) =>
    (['first', 'middle', 'last'] as const).every((position) => sizeOf(part(start, end, position)) <= TRANSACTION_ITEMS);
  if (count === 0) return [];
  if (sizeOf(part(0, count, 'whole')) <= TRANSACTION_ITEMS) return [{ start: 0, end: count, position: 'whole' }];
  const cuts: { start: number; end: number }[] = [];
  for (let start = 0; start < count; ) {
    if (!fits(start, start + 1)) throw new ChangeSetTooLargeError('One unit of this change-set exceeds a transaction');
    let end = start + 1;
    while (end < count && fits(start, end + 1)) end++;
    cuts.push({ start, end });
    start = end;
  }
  // Everything fits one part, but not as a whole: the last unit closes the sequence on its own.
  if (cuts.length === 1) {
    if (count === 1) throw new ChangeSetTooLargeError('One unit of this change-set exceeds a transaction');
    cuts.splice(0, 1, { start: 0, end: count - 1 }, { start: count - 1, end: count });
  }
  return cuts.map(({ start, end }, i) => ({
    start,
    end,
    position: i === 0 ? 'first' : i === cuts.length - 1 ? 'last' : 'middle',
  }));
};

/**
 * Cuts `count` units, in order, into runs whose change-sets (`set` of units `[start, end)`) each fit
 * one transaction, each run as long as fits: for units that are written independently of each other.
 */
export const packUnits = (
  count: number,
  set: (start: number, end: number) => ChangeSet<unknown, unknown>,
): { start: number; end: number }[] => {
  const runs: { start: number; end: number }[] = [];
  let start = 0;
  while (start < count) {
    if (sizeOf(set(start, start + 1)) > TRANSACTION_ITEMS) {
      throw new ChangeSetTooLargeError('One unit of this change-set exceeds a transaction');
    }
    let end = start + 1;
    while (end < count && sizeOf(set(start, end + 1)) <= TRANSACTION_ITEMS) end++;
    runs.push({ start, end });
    start = end;
  }
  return runs;
};

/** Writes change-sets of one table: each in one transaction, or a declared sequence of them. */
export const changeWriter = (db: DynamoDBDocumentClient, table: string) => {
  /**
   * Writes the changes `build` returns in one transaction (none: nothing to write). It builds
   * again, after a pause, when another transaction conflicted or only `retry` changes failed,
   * telling `build` every tag that failed so far. A `refuse` change that failed answers its
   * reasons and writes nothing, whatever else failed beside it; otherwise any failed condition of
   * a change that declares no meaning throws ConditionsFailedError. Retries
   * that run out throw ServiceUnavailableError: the items are contended, and the client may try
   * again later. A set larger than a transaction throws ChangeSetTooLargeError.
   */
  const commit = async <R = never, T = never>(
    build: (retried: ReadonlySet<T>) => ChangeSet<R, T> | Promise<ChangeSet<R, T>>,
    { maxAttempts = DEFAULT_ATTEMPTS, budgetMs = TRANSACTION_BUDGET_MS }: CommitOptions = {},
  ): Promise<Outcome<R>> => {
    const deadline = Date.now() + Math.min(budgetMs, timeLeft());
    const retried = new Set<T>();
    const attempt = async (): Promise<Outcome<R>> => {
      const changes = await build(retried);
      if (sizeOf(changes) > TRANSACTION_ITEMS) {
        throw new ChangeSetTooLargeError(
          `A change-set of ${sizeOf(changes)} items exceeds DynamoDB's limit of ${TRANSACTION_ITEMS} per transaction`,
        );
      }
      const compiled = await compile(db, table, changes);
      if (compiled.length === 0) return COMMITTED;
      try {
        await db.send(new TransactWriteCommand({ TransactItems: compiled.map(({ item }) => item) }));
        return COMMITTED;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
        const failed = compiled.filter((_, i) => codes[i] === 'ConditionalCheckFailed');
        const conflicted = codes.includes('TransactionConflict');
        if (conflicted) recordTransactionConflict();
        // A refusal explains whatever else failed beside it (a count of the item it found missing, say).
        const reasons = failed.flatMap(({ meaning }) =>
          typeof meaning === 'object' && 'refuse' in meaning ? [meaning.refuse] : [],
        );
        if (reasons.length > 0) return { committed: false, refused: reasons[0] as R, reasons };
        const unexpected = failed.filter(({ meaning }) => meaning === undefined);
        if (unexpected.length > 0) {
          throw new ConditionsFailedError(
            unexpected.map(({ describe }) => describe),
            { cause: error },
          );
        }
        if (failed.length === 0 && !conflicted) throw error;
        for (const { meaning } of failed) {
          if (typeof meaning === 'object' && 'retry' in meaning) retried.add(meaning.retry);
        }
        throw new Contended(error);
      }
    };
    return withRetries(attempt, {
      maxAttempts,
      deadline,
      backoff: BACKOFF,
      shouldRetry: (error) => error instanceof Contended,
      giveUp: (error) =>
        new ServiceUnavailableError('The data store is busy with other writes to the same items', {
          cause: (error as Contended).cancelled,
        }),
    });
  };

  /**
   * Writes `count` units (each atomic) as an ordered sequence of transactions cut by `planParts`,
   * each part built by `part` and committed as `commit` does. It stops at the first part refused:
   * the units before it stay written (`written`), so the caller can undo them; each part's own
   * conditions (a record written only if still absent, say) keep a repeated part from applying twice.
   */
  const commitInParts = async <R = never>(
    count: number,
    part: (start: number, end: number, position: PartPosition) => ChangeSet<R, never>,
    options: CommitOptions = {},
  ): Promise<{ outcome: Outcome<R>; written: number }> => {
    let written = 0;
    for (const { start, end, position } of planParts(count, part)) {
      const outcome = await commit(() => part(start, end, position), options);
      if (!outcome.committed) return { outcome, written };
      written = end;
    }
    return { outcome: COMMITTED, written };
  };

  return { commit, commitInParts };
};
export type ChangeWriter = ReturnType<typeof changeWriter>;
