import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

/** One entry of a TransactWriteItems request (document-client form). */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/**
 * The items of one transaction by name; an undefined entry is left out. What `verdictChange`
 * returns, and the `verdicts` change of a change-set (change-set.ts) writes.
 */
export type NamedItems = Record<string, TransactItem | undefined>;
