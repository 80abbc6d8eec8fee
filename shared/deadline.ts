import { AsyncLocalStorage } from 'node:async_hooks';
import { config } from './config.ts';

/**
 * How long an HTTP request may wait on its dependencies in all, from its arrival: with the store
 * stalled, every table route answers 503 with `Retry-After` within 3 s. The second left covers
 * the answer itself on a busy host, where a burst of requests all give up at once (measured by
 * `npm run bench -- outage`); a healthy request needs a small part of it.
 */
export const REQUEST_BUDGET_MS = 2000;
/** Kept back from the function's own timeout, for the 503 to be sent before Lambda ends the invocation. */
const ANSWER_MARGIN_MS = 500;

/** `limit`: how far the deadline may be moved (`extendDeadline`): the function's own timeout, less the answer's margin. */
type Deadline = { at: number; open: boolean; limit: number };

const current = new AsyncLocalStorage<Deadline>();

/**
 * Runs `work` under a deadline (epoch ms) that every call to a dependency made for it respects
 * (db/client.ts, db/change-set.ts): a call gets at most the time left, and one started after the
 * deadline fails at once. Work that outlives `work` itself (a refresh it started in the
 * background) is no longer bound by it.
 */
export const withDeadline = async <R>(at: number, work: () => Promise<R>, limit = at): Promise<R> => {
  const deadline: Deadline = { at, open: true, limit: Math.max(at, limit) };
  try {
    return await current.run(deadline, work);
  } finally {
    deadline.open = false;
  }
};

/**
 * At most this much of the time a request spent before its handler ran (in the gateway, or in a
 * cold start) is charged to its budget, so a handler always has the rest for its own calls.
 */
const MAX_WAIT_CHARGED_MS = 1000;

/**
 * The deadline of a request received at `receivedAt` (epoch ms, API Gateway's `timeEpoch`) whose
 * invocation has `remainingMs` left: the request budget (or the local override
 * `STORE_REQUEST_BUDGET_MS`) from its arrival, cut short when the function would time out first.
 */
export const requestDeadline = (remainingMs: number, receivedAt: number, now = Date.now()): number => {
  const waited = Math.min(Math.max(0, now - receivedAt), MAX_WAIT_CHARGED_MS);
  return Math.min(now - waited + requestBudgetMs(), invocationLimit(remainingMs, now));
};

const requestBudgetMs = (): number => config.storeTimeouts.requestBudgetMs ?? REQUEST_BUDGET_MS;

/** The latest a deadline of an invocation with `remainingMs` left may be: room is kept for the answer. */
export const invocationLimit = (remainingMs: number, now = Date.now()): number => now + remainingMs - ANSWER_MARGIN_MS;

/**
 * Gives the work in progress `budgets` more request budgets, never past its limit (withDeadline):
 * for a request whose work grows with what it carries (a bulk add of 1,000 assets), so its time
 * follows its work rather than the budget of a single call. Outside a deadline it does nothing.
 */
export const extendDeadline = (budgets: number): void => {
  const deadline = current.getStore();
  if (deadline?.open && budgets > 0) deadline.at = Math.min(deadline.limit, deadline.at + budgets * requestBudgetMs());
};

/** Milliseconds left before the deadline of the work in progress (negative once it passed); Infinity outside one. */
export const timeLeft = (now = Date.now()): number => {
  const deadline = current.getStore();
  return deadline?.open ? deadline.at - now : Number.POSITIVE_INFINITY;
};
