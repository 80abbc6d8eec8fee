import { canonicalize } from './canonical.ts';
import type { PublicSuffixes } from './public-suffix.ts';
import {
  type CheckIndexStore,
  type CheckResult,
  type CheckStatus,
  type CheckTarget,
  type ExternalSource,
  type IndexEntry,
  type KeyLevel,
  type KeyTarget,
  LEVEL,
  SOURCE_ORDER,
  type SourceName,
  type SourceReport,
  type SourceVerdict,
} from './types.ts';

type Failure = { failure: 'timeout' | 'source-error' };
type Outcome = SourceVerdict | Failure;

const TIMEOUT: Failure = Object.freeze({ failure: 'timeout' });
const SOURCE_ERROR: Failure = Object.freeze({ failure: 'source-error' });

/** Failures are these two constants only, so a comparison tells them from answers of any shape. */
const isFailure = (value: unknown): value is Failure => value === TIMEOUT || value === SOURCE_ERROR;

/** `instanceof`, not a look for `then`: answers of many shapes pass here on every check, and the lookup would go megamorphic. */
const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => value instanceof Promise;

/** The check's timer port: calls `fire` after `ms` unless the returned cancel is called first. */
export type Timer = (ms: number, fire: () => void) => () => void;

/** Settles with the promise's value, or TIMEOUT after `ms`, or SOURCE_ERROR if it rejects. */
const withinBudget = <T>(timer: Timer, promise: Promise<T>, ms: number): Promise<T | Failure> =>
  new Promise((resolve) => {
    const cancel = timer(ms, () => resolve(TIMEOUT));
    promise.then(
      (value) => {
        cancel();
        resolve(value);
      },
      () => {
        cancel();
        resolve(SOURCE_ERROR);
      },
    );
  });

const unknownFromService = (extra: Omit<CheckResult, 'status' | 'source' | 'sources'>): CheckResult =>
  Object.freeze({
    status: 'UNKNOWN',
    source: 'service',
    sources: Object.freeze([Object.freeze({ source: 'service', status: 'UNKNOWN' })]) as SourceReport[],
    ...extra,
  });

const FIXED: Record<Exclude<CheckTarget['kind'], 'keys' | 'hosting-domain'>, CheckResult> = {
  'parse-error': unknownFromService({
    code: 'parse-error',
    message: 'Content is not a valid URL, domain, address, email or phone number',
  }),
  'internal-scheme': unknownFromService({
    code: 'internal-scheme',
    message: 'Browser-internal content is not checked',
  }),
  'unsupported-type': unknownFromService({
    reason: 'unsupported-type',
    message: 'Content is not a URL, domain, address, email or phone number',
  }),
  'private-address': unknownFromService({
    reason: 'not-found',
    message: 'Private and local network addresses are not checked',
  }),
};

type Reports = Record<CheckStatus, SourceReport> & Record<Failure['failure'], SourceReport>;

/** One frozen report per source and answer, shared by every result: a result's reports are never changed. */
const REPORTS = Object.fromEntries(
  SOURCE_ORDER.map((source) => [
    source,
    Object.freeze({
      UNKNOWN: Object.freeze({ source, status: 'UNKNOWN' }),
      ALLOWED: Object.freeze({ source, status: 'ALLOWED' }),
      BLOCKED: Object.freeze({ source, status: 'BLOCKED' }),
      timeout: Object.freeze({ source, status: 'UNKNOWN', reason: 'timeout' }),
      'source-error': Object.freeze({ source, status: 'UNKNOWN', reason: 'source-error' }),
    }),
  ]),
) as Record<SourceName, Reports>;

type ServiceVerdict = { status: 'ALLOWED' | 'BLOCKED'; key: string; level: KeyLevel; watch: boolean };

/**
 * The service's own verdict: the most specific key with an entry decides, and at that key an
 * allowlisting beats a threat. A less specific key never overrides a more specific one, so an
 * allowlisted brand domain does not mask a blocked subdomain.
 */
const serviceVerdict = (
  target: KeyTarget,
  entries: readonly (IndexEntry | undefined)[],
): ServiceVerdict | undefined => {
  for (let i = 0; i < target.keys.length; i++) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const level = target.levels[i] as KeyLevel;
    const key = target.keys[i] as string;
    if (entry.allow > 0) return { status: 'ALLOWED', key, level, watch: false };
    if (entry.block > 0) return { status: 'BLOCKED', key, level, watch: entry.watch > 0 };
  }
  return undefined;
};

const serviceResult = (verdict: ServiceVerdict, sources: SourceReport[]): CheckResult => {
  const inherited = verdict.level === LEVEL.parent;
  const what = verdict.status === 'ALLOWED' ? 'allowlisted by an organization' : 'a reported threat';
  const result: CheckResult = {
    status: verdict.status,
    source: 'service',
    sources,
    message: inherited ? `Inherited from ${verdict.key}, ${what}` : `${verdict.key} is ${what}`,
  };
  if (inherited) result.reason = 'parent-domain';
  if (verdict.status === 'BLOCKED') result.watchStatus = verdict.watch ? 'ENABLED' : 'DISABLED';
  return result;
};

/** What the check index and the external sources (in the order of `SOURCE_ORDER`) answered for one target. */
type Answers = {
  entries: readonly (IndexEntry | undefined)[] | Failure;
  externals: readonly ExternalSource[];
  /** By position in `externals`; undefined for a source that had no answer for this target. */
  outcomes: readonly (Outcome | undefined)[];
  /** The frozen not-found results for these `externals`, by the bit set of those that answered. */
  notFound: CheckResult[];
};

/** Bit sets of answering sources stay within a small integer. */
const MOST_CACHED_SOURCES = 16;

const reportsOf = (
  service: SourceReport,
  externals: readonly ExternalSource[],
  outcomes: readonly (Outcome | undefined)[],
): SourceReport[] => {
  const reports = [service];
  for (let i = 0; i < externals.length; i++) {
    const outcome = outcomes[i];
    if (outcome === undefined) continue;
    const sourceReports = REPORTS[(externals[i] as ExternalSource).name];
    reports.push(isFailure(outcome) ? sourceReports[outcome.failure] : sourceReports[outcome.status]);
  }
  return reports;
};

/**
 * The verdict from the answers: the service's own verdict wins; otherwise an external allowlisting
 * wins over an external block, and between equals the first source in `SOURCE_ORDER`.
 */
const decide = (
  target: KeyTarget,
  { entries, externals, outcomes, notFound }: Answers,
  indexStale: boolean,
): CheckResult => {
  const indexFailure = isFailure(entries) ? entries.failure : undefined;
  // A replica that could not sync for a while still answers what it knows, flagged.
  const stale = indexFailure === undefined && indexStale;
  const service = isFailure(entries) ? undefined : serviceVerdict(target, entries);
  let allowed = -1;
  let blocked = -1;
  let failure = indexFailure;
  let answered = 0;
  for (let i = 0; i < externals.length; i++) {
    const outcome = outcomes[i];
    if (outcome === undefined) continue;
    answered |= 1 << i;
    if (isFailure(outcome)) {
      if (failure !== 'timeout') failure = outcome.failure;
      continue;
    }
    if (outcome.status === 'ALLOWED' && allowed < 0) allowed = i;
    if (outcome.status === 'BLOCKED' && blocked < 0) blocked = i;
  }

  const unknown = service === undefined && allowed < 0 && blocked < 0;
  if (unknown && failure === undefined && !stale && externals.length <= MOST_CACHED_SOURCES) {
    // The answer for content no one lists depends only on which sources answered (most checks):
    // one frozen result each, made once, instead of a report array and a result per check.
    notFound[answered] ??= Object.freeze({
      status: 'UNKNOWN',
      source: 'service',
      sources: Object.freeze(reportsOf(REPORTS.service.UNKNOWN, externals, outcomes)) as SourceReport[],
      reason: 'not-found',
    });
    return notFound[answered] as CheckResult;
  }
  const sourceReports = reportsOf(REPORTS.service[indexFailure ?? service?.status ?? 'UNKNOWN'], externals, outcomes);
  if (service) {
    const result = serviceResult(service, sourceReports);
    if (stale) result.code = 'internal-error';
    return result;
  }
  const result: CheckResult = { status: 'UNKNOWN', source: 'service', sources: sourceReports };
  const decisive = allowed >= 0 ? allowed : blocked;
  if (decisive >= 0) {
    const verdict = outcomes[decisive] as SourceVerdict;
    result.status = verdict.status;
    result.source = (externals[decisive] as ExternalSource).name;
    result.reason = 'external-source';
    if (verdict.message !== undefined) result.message = verdict.message;
  } else {
    result.reason = failure ?? 'not-found';
  }
  if (indexFailure || stale) result.code = 'internal-error';
  return result;
};

export type CheckerOptions = {
  index: CheckIndexStore;
  /** The external sources in force; a function, so that refreshed lists take effect. */
  sources: () => readonly ExternalSource[] | Promise<readonly ExternalSource[]>;
  /** How long the check index may take before the service reports `timeout`. */
  indexBudgetMs?: number;
  /** Bounds the index's and the live sources' answers by their budgets. */
  timer: Timer;
  /** The suffix data the content is canonicalized with. */
  suffixes: PublicSuffixes;
};

/** Answers without a promise when every source answers from memory; callers await either way. */
export type Checker = { check(content: string): CheckResult | Promise<CheckResult> };

const orderOf = (source: ExternalSource) => SOURCE_ORDER.indexOf(source.name);

/**
 * The asset check. The check index and every external source are consulted at once; in-memory
 * sources answer synchronously, live ones within their budget. The service's own verdict wins;
 * otherwise an external allowlisting wins over an external block (as across MetaMask's lists),
 * and between equals the first source in `SOURCE_ORDER`. A slow or failing source (the index
 * included) never fails the check: it is reported with `timeout` or `source-error`.
 */
export const createChecker = ({ index, sources, indexBudgetMs = 2000, timer, suffixes }: CheckerOptions): Checker => {
  let ordered: { from: readonly ExternalSource[]; to: readonly ExternalSource[]; notFound: CheckResult[] } | undefined;
  const inOrder = (list: readonly ExternalSource[]) => {
    if (ordered?.from !== list) {
      ordered = { from: list, to: [...list].sort((a, b) => orderOf(a) - orderOf(b)), notFound: [] };
    }
    return ordered;
  };

  /**
   * Asks the check index and every external source at once; a source that throws or rejects
   * answers SOURCE_ERROR. When every answer is in memory the answers come back synchronously, with
   * no promise made.
   */
  const consult = (target: KeyTarget): Answers | Promise<Answers> => {
    let lookup: ReturnType<CheckIndexStore['lookup']> | Failure;
    try {
      lookup = index.lookup(target.keys);
    } catch {
      lookup = SOURCE_ERROR;
    }
    const available = sources();
    return isPromise(available)
      ? available.then((list) => gather(target, lookup, list))
      : gather(target, lookup, available);
  };

  const gather = (
    target: KeyTarget,
    lookup: ReturnType<CheckIndexStore['lookup']> | Failure,
    available: readonly ExternalSource[],
  ): Answers | Promise<Answers> => {
    const { to: externals, notFound } = inOrder(available);
    const outcomes: (Outcome | undefined)[] = new Array(externals.length);
    let pending: Promise<void>[] | undefined;
    for (let i = 0; i < externals.length; i++) {
      const source = externals[i] as ExternalSource;
      let answer: ReturnType<ExternalSource['check']>;
      try {
        answer = source.check(target);
      } catch {
        outcomes[i] = SOURCE_ERROR;
        continue;
      }
      if (isPromise(answer)) {
        pending ??= [];
        pending.push(
          withinBudget(timer, answer, source.budgetMs).then((outcome) => {
            outcomes[i] = outcome;
          }),
        );
      } else {
        outcomes[i] = answer;
      }
    }
    if (pending === undefined && !isPromise(lookup)) return { entries: lookup, externals, outcomes, notFound };
    return (async () => {
      const entries = isPromise(lookup) ? await withinBudget(timer, lookup, indexBudgetMs) : lookup;
      if (pending) await Promise.all(pending);
      return { entries, externals, outcomes, notFound };
    })();
  };

  const checkTarget = (target: CheckTarget): CheckResult | Promise<CheckResult> => {
    if (target.kind === 'keys') {
      const answers = consult(target);
      return isPromise(answers)
        ? answers.then((known) => decide(target, known, index.stale?.() === true))
        : decide(target, answers, index.stale?.() === true);
    }
    if (target.kind === 'hosting-domain') {
      return unknownFromService({
        reason: 'hosting-domain',
        message: `${target.host} hosts content of many owners: check a page or subdomain on it`,
      });
    }
    return FIXED[target.kind];
  };

  return { check: (content) => checkTarget(canonicalize(suffixes, content)) };
};
