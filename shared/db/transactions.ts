import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

/** One entry of a TransactWriteItems request (document-client form). */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** The items of one transaction by name; an undefined entry is left out. */
export type NamedItems = Record<string, TransactItem | undefined>;

/** The cancellation reason codes of a failed TransactWriteItems, in item order; undefined for any other error. */
export const cancellationCodes = (error: unknown): (string | undefined)[] | undefined =>
  error instanceof TransactionCanceledException
    ? (error.CancellationReasons ?? []).map((reason) => reason.Code)
    : undefined;

export const failedCondition = (codes: (string | undefined)[] | undefined, index: number): boolean =>
  codes?.[index] === 'ConditionalCheckFailed';

/** Another transaction touched the same items at the same moment; retrying is safe. */
export const conflicted = (codes: (string | undefined)[] | undefined): boolean =>
  codes?.some((code) => code === 'TransactionConflict') ?? false;

/** Full-jitter exponential backoff before retry `attempt` (1-based), capped at 250 ms. */
export const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 10 * 2 ** attempt)));
