import { breakdownKeysOf } from '../domain/insight-counters.ts';
import { type Change, counterExpression, type OnFailed, record } from './change-set.ts';
import type { Key } from './keys.ts';

type AddExpression = {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
};

/**
 * An insight month item's `ADD` of counter deltas, extended to add each breakdown key those deltas
 * count to its breakdown's key set (string sets only grow; a key whose counter is back at zero reads
 * as no row).
 */
export const withBreakdownKeys = <T extends AddExpression>(expression: T, deltas: Record<string, number>): T => {
  const sets = Object.entries(breakdownKeysOf(deltas));
  if (sets.length === 0) return expression;
  return {
    ...expression,
    UpdateExpression: `${expression.UpdateExpression}, ${sets.map((_, i) => `#ks${i} :ks${i}`).join(', ')}`,
    ExpressionAttributeNames: {
      ...expression.ExpressionAttributeNames,
      ...Object.fromEntries(sets.map(([name], i) => [`#ks${i}`, name])),
    },
    ExpressionAttributeValues: {
      ...expression.ExpressionAttributeValues,
      ...Object.fromEntries(sets.map(([, keys], i) => [`:ks${i}`, new Set(keys)])),
    },
  };
};

/**
 * The counter change of an insight month item: its deltas added (no counter below zero), and the
 * breakdown keys they count added to their key sets.
 */
export const monthCounter = <R = never, T = never>(
  key: Key,
  deltas: Record<string, number>,
  onFailed?: OnFailed<R, T>,
): Change<R, T> => record({ Update: { Key: key, ...withBreakdownKeys(counterExpression(deltas), deltas) } }, onFailed);
