/**
 * Every duration the verdict feed keeps, one line each. The parts take them as the defaults of
 * their options (`settleMs`, `pollMs`, `tickMs`, ...), so a test passes a short window or its own
 * clock instead of waiting them out. The schedules of the publisher (every minute) and of the
 * snapshot job (every 5 minutes) are the stack's (`infra/verdict-snapshots.ts`).
 */

/** The log's contract with its readers. */
export const LOG_TIMING = {
  /** A transaction may commit this long after its writer stamped the entry: readers re-read it, the changelog waits it out. */
  settleMs: 3_000,
  /** How long the log keeps an entry (its TTL); a reader further behind starts from a snapshot. */
  retentionMs: 7 * 24 * 3_600_000,
  /** The span of one of the earlier hourly log partitions: a poll reads one, a changelog from retention's start 168. */
  bucketMs: 3_600_000,
} as const;

/** The publisher's rhythm and lease. */
export const PUBLISHING = {
  /** A read of the log and a pointer every tick; replicas poll the pointer when it is due. */
  tickMs: 250,
  /** A hold of the publisher lease, renewed at half: a stopped publisher's successor starts within it. */
  leaseMs: 10_000,
  leaseName: 'verdict-publisher',
} as const;

/** When a publisher's run lets go (Lambda runs it every minute). */
export const PUBLISHER_RUN = {
  /** Time a run keeps after it stops publishing, to let its lease go. */
  stopMarginMs: 5_000,
  /** A run's length when its context does not say (a run by hand). */
  defaultBudgetMs: 60_000,
} as const;

/** The publisher's allowances. */
export const PUBLISHER_TIMING = {
  /** Entries may be stamped this far ahead of the publisher's clock; a delta may hold changes stamped up to then. */
  clockSkewMs: 1_000,
  /** A function of the earlier version runs at most this long (Lambda's longest timeout) after it was replaced. */
  legacyWritersMs: 15 * 60_000,
  /** A publisher taking over a feed older than this starts from the present (readers catch up from the log). */
  maxLagMs: 60_000,
} as const;

/** How a replica reads the published feed. */
export const FEED_POLLING = {
  /** A poll aimed at the next pointer comes this long after it is due (its write takes a moment). */
  dueMarginMs: 50,
  /** A poll that found the next pointer late looks again this soon, for up to a tick past its due time. */
  lateRetryMs: 50,
} as const;

/** A check container's replica. */
export const REPLICA_TIMING = {
  /** At most one poll per this interval (where the feed publishes, its tick instead). */
  pollMs: 1_000,
  /** A poll that takes longer has failed, so a stalled table does not stop later polls. */
  pollTimeoutMs: 5_000,
  /** A replica not synced for this long flags its answers stale (they still stand). */
  staleAfterMs: 30_000,
  /** After an idle spell, the lookup that starts a poll waits this long for it. */
  waitMs: 200,
} as const;

/** The snapshot job. */
export const SNAPSHOT_TIMING = {
  /** A rebuild replays the log from this long before it began: the index it reads lags its entries. */
  indexLagMs: 60_000,
  /** Time a run keeps for storing what it built after it stops reading the index. */
  saveMarginMs: 90_000,
} as const;

/**
 * Changelog reads one container runs at once; a read waits for a turn at most `maxWaitMs`, behind
 * fewer than `waitingPerCaller` of its caller's, else it is answered 429. A Lambda container
 * serves one request at a time; a process serving many (the local runtime) shares its CPU and one
 * pool of connections to the table with every route, and one read at a time kept another key's
 * listing within 2× of its latency under a burst of 16 (`npm run bench -- changelog`). Waiting
 * callers take turns, so one caller's burst delays another's changelog by a turn at most, and a
 * wait leaves most of the request's 2 s for the read.
 */
export const CHANGELOG_READS = { running: 1, waitingPerCaller: 4, maxWaitMs: 500 } as const;
