/** The rate-limit classes of routes; every keyed route belongs to exactly one. */
export const RATE_CLASSES = ['check', 'read', 'write', 'report'] as const;
export type RateClass = (typeof RATE_CLASSES)[number];

/** A token bucket: at most `burst` tokens, refilled at `perSecond` tokens a second, one token a request. */
export type Budget = { perSecond: number; burst: number };
/** A key's own budgets; a class it does not name keeps the stage default. */
export type KeyRateLimits = Partial<Record<RateClass, Budget>>;

/** What the `RateLimit-*` and `Retry-After` headers say about one request. */
export type RateDecision = {
  allowed: boolean;
  rateClass: RateClass;
  /** The bucket's size (`RateLimit-Limit`). */
  limit: number;
  /** Whole tokens left after this request (`RateLimit-Remaining`). */
  remaining: number;
  /** Whole seconds until the bucket is full again (`RateLimit-Reset`). */
  resetSeconds: number;
  /** Whole seconds until the next token, at least 1; only on a refusal (`Retry-After`). */
  retryAfterSeconds?: number;
};

/**
 * The stage defaults unless `RATE_LIMITS` says otherwise. The check is called per visited URL by
 * every user of a wallet or extension behind one key, so it gets the most; a report starts work
 * (scans, reviews), so it gets the least.
 */
export const DEFAULT_RATE_LIMITS: Record<RateClass, Budget> = {
  check: { perSecond: 100, burst: 200 },
  read: { perSecond: 20, burst: 40 },
  write: { perSecond: 10, burst: 20 },
  report: { perSecond: 2, burst: 10 },
};

/**
 * Stage defaults from a setting such as `check=100/200,report=1/5` (`<class>=<perSecond>/<burst>`);
 * classes it does not name keep `DEFAULT_RATE_LIMITS`.
 */
export const parseRateLimits = (setting: string | undefined): Record<RateClass, Budget> => {
  const limits = { ...DEFAULT_RATE_LIMITS };
  for (const part of (setting ?? '').split(',').map((text) => text.trim())) {
    if (part === '') continue;
    const match = /^(\w+)=(\d+(?:\.\d+)?)\/(\d+)$/.exec(part);
    const rateClass = RATE_CLASSES.find((known) => known === match?.[1]);
    const budget = match && { perSecond: Number(match[2]), burst: Number(match[3]) };
    if (!rateClass || !isBudget(budget)) {
      throw new Error(`RATE_LIMITS: "${part}" is not <${RATE_CLASSES.join('|')}>=<perSecond>/<burst> (both > 0)`);
    }
    limits[rateClass] = budget;
  }
  return limits;
};

export const isBudget = (value: unknown): value is Budget => {
  const budget = value as Budget | null;
  return (
    typeof budget === 'object' &&
    budget !== null &&
    Number.isFinite(budget.perSecond) &&
    budget.perSecond > 0 &&
    Number.isInteger(budget.burst) &&
    budget.burst >= 1
  );
};

/** A key's stored limits, keeping only well-formed budgets of known classes. */
export const keyRateLimits = (stored: unknown): KeyRateLimits | undefined => {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const limits: KeyRateLimits = {};
  for (const rateClass of RATE_CLASSES) {
    const budget = (stored as Record<string, unknown>)[rateClass];
    if (isBudget(budget)) limits[rateClass] = { perSecond: budget.perSecond, burst: budget.burst };
  }
  return Object.keys(limits).length > 0 ? limits : undefined;
};

type Bucket = { tokens: number; at: number; budget: Budget };

const refilled = ({ tokens, at, budget }: Bucket, now: number): number =>
  Math.min(budget.burst, tokens + (Math.max(0, now - at) / 1000) * budget.perSecond);

/** One request's take from a bucket: whether it got a token, and the (fractional) tokens left after it. */
export type Take = { allowed: boolean; tokens: number };

export type TokenBuckets = {
  /** Takes one token from bucket `id`, sized by `budget`. */
  take(id: string, budget: Budget): Take;
  /** Puts back the token a request took, when what it did turned out not to count against the bucket. */
  giveBack(id: string): void;
};

/** Whole seconds until a refused request's bucket holds a token again, at least 1 (`Retry-After`). */
export const retryAfterSeconds = (take: Take, budget: Budget): number =>
  Math.max(1, Math.ceil((1 - take.tokens) / budget.perSecond));

/**
 * Token buckets in memory. Nothing is written anywhere: in Lambda the buckets are per container
 * (see the README, "Rate limits"). At `maxBuckets` the buckets that are full again are dropped
 * first (a full bucket is the same as a new one), then the oldest.
 */
export const tokenBuckets = ({ now = Date.now, maxBuckets = 10_000 } = {}): TokenBuckets => {
  const buckets = new Map<string, Bucket>();

  const makeRoom = (at: number) => {
    for (const [id, bucket] of buckets) if (refilled(bucket, at) >= bucket.budget.burst) buckets.delete(id);
    const oldest = buckets.keys().next();
    if (buckets.size >= maxBuckets && !oldest.done) buckets.delete(oldest.value);
  };

  return {
    take(id, budget) {
      const at = now();
      let bucket = buckets.get(id);
      if (!bucket) {
        if (buckets.size >= maxBuckets) makeRoom(at);
        bucket = { tokens: budget.burst, at, budget };
        buckets.set(id, bucket);
      }
      // A key's budget can change (its cached record is read again within 60 s): refill under the new one.
      bucket.budget = budget;
      const tokens = refilled(bucket, at);
      const allowed = tokens >= 1;
      bucket.tokens = allowed ? tokens - 1 : tokens;
      bucket.at = at;
      return { allowed, tokens: bucket.tokens };
    },
    giveBack(id) {
      const bucket = buckets.get(id);
      if (bucket) bucket.tokens = Math.min(bucket.budget.burst, bucket.tokens + 1);
    },
  };
};

export type RateLimiter = {
  /** Takes one token from the bucket of (`keyId`, `rateClass`), sized by `budget`. */
  take(keyId: string, rateClass: RateClass, budget: Budget): RateDecision;
};

/** One bucket per key and class (`tokenBuckets`). */
export const rateLimiter = (options: { now?: () => number; maxBuckets?: number } = {}): RateLimiter => {
  const buckets = tokenBuckets(options);
  return {
    take(keyId, rateClass, budget) {
      const take = buckets.take(`${rateClass}:${keyId}`, budget);
      const decision: RateDecision = {
        allowed: take.allowed,
        rateClass,
        limit: budget.burst,
        remaining: Math.floor(take.tokens),
        resetSeconds: Math.ceil((budget.burst - take.tokens) / budget.perSecond),
      };
      if (!take.allowed) decision.retryAfterSeconds = retryAfterSeconds(take, budget);
      return decision;
    },
  };
};

/**
 * Failed key lookups per source address: a burst of `DEFAULT_KEY_GUESS_LIMIT.burst`
 * unknown keys, then one a second; apart from the per-key budgets.
 */
export const DEFAULT_KEY_GUESS_LIMIT: Budget = { perSecond: 1, burst: 50 };

/** The failed-key budget from a setting such as `1/50` (`<perSecond>/<burst>`); unset, the default. */
export const parseKeyGuessLimit = (setting: string | undefined): Budget => {
  if (setting === undefined || setting.trim() === '') return DEFAULT_KEY_GUESS_LIMIT;
  const match = /^(\d+(?:\.\d+)?)\/(\d+)$/.exec(setting.trim());
  const budget = match && { perSecond: Number(match[1]), burst: Number(match[2]) };
  if (!isBudget(budget)) throw new Error(`KEY_GUESS_LIMIT: "${setting}" is not <perSecond>/<burst> (both > 0)`);
  return budget;
};
