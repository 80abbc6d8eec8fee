import type { TransactItem } from './change-set.ts';

/**
 * The items of one transaction by name; an undefined entry is left out. What `verdictChange`
 * returns, and the `verdicts` change of a change-set (change-set.ts) writes.
 */
export type NamedItems = Record<string, TransactItem | undefined>;
