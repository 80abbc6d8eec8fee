import { type Change, counterExpression, type OnFailed, record } from './change-set.ts';
import { breakdownKeysOf, gaugeSlotsOf } from './insight-items.ts';
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

/** DynamoDB's limit on an expression's length, less room for the `SET`/`ADD` keywords and separators. */
const MAX_EXPRESSION = 4_000;

/**
 * A gauge item's `ADD` of counter deltas, extended to set every other slot of the gauges they count
 * to zero where missing, so a gauge item holds all of its gauges' slots whatever the activity. An
 * update that touches so many gauges of one month that their slots overflow an expression fills
 * those that fit; a later write fills the rest.
 */
export const withGaugeSlots = <T extends AddExpression>(expression: T, deltas: Record<string, number>): T => {
  const fills: string[] = [];
  let length = expression.UpdateExpression.length;
  for (const slot of gaugeSlotsOf(deltas)) {
    if (slot in deltas) continue;
    // Slot names are a letter and two digits: never a reserved word, so no placeholder is needed.
    const fill = `${slot}=if_not_exists(${slot},:zero)`;
    if (length + fill.length + 1 > MAX_EXPRESSION) break;
    fills.push(fill);
    length += fill.length + 1;
  }
  if (fills.length === 0) return expression;
  return {
    ...expression,
    UpdateExpression: `SET ${fills.join(',')} ${expression.UpdateExpression}`,
    ExpressionAttributeValues: { ...expression.ExpressionAttributeValues, ':zero': 0 },
  };
};

/** The counter change of a gauge item: its deltas added (no gauge below zero), its gauges' slots all present. */
export const gaugeCounter = <R = never, T = never>(
  key: Key,
  deltas: Record<string, number>,
  onFailed?: OnFailed<R, T>,
): Change<R, T> => record({ Update: { Key: key, ...withGaugeSlots(counterExpression(deltas), deltas) } }, onFailed);
