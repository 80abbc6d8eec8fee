/**
 * Names of the service's CloudWatch metrics (embedded metric format). The functions emit them
 * and the stack's alarms and dashboard read them, so both import these constants.
 */
export const METRICS_NAMESPACE = 'AssetProtection';

export const METRIC = {
  /** Per endpoint (dimension `route`): every response, 4xx, 5xx, and the handler's latency. */
  requests: 'Requests',
  clientErrors: 'ClientErrors',
  serverErrors: 'ServerErrors',
  latency: 'Latency',
  /** Asset check: one per verdict, by `status` and by deciding `source`. */
  verdicts: 'Verdicts',
  /** Asset check: a consulted source ran out of time or failed (dimension `source`). */
  sourceTimeouts: 'SourceTimeouts',
  sourceErrors: 'SourceErrors',
  /** Activity ingestion, per batch. `ChangesRejected` can never apply and went to the dead-letter queue. */
  changesApplied: 'ChangesApplied',
  changesIgnored: 'ChangesIgnored',
  changesFailed: 'ChangesFailed',
  changesRejected: 'ChangesRejected',
  /** List sync, per successfully synced list (dimension `source`): its entries and the age of its content. */
  listEntries: 'ListEntries',
  listAge: 'ListAge',
  /** Per endpoint: responses that were 429 (a rate limit answered for the caller). */
  rateLimited: 'RateLimited',
  /** Transactions cancelled because another transaction touched one of their items (each attempt). */
  transactionConflicts: 'TransactionConflicts',
  /** Verdict replicas (check routes): seconds since the replica last caught up with the verdict log, the maximum seen. */
  replicaAge: 'ReplicaAge',
  /** The verdict snapshot job: one per snapshot stored; none for an hour means the snapshots are stale. */
  snapshotsStored: 'SnapshotsStored',
} as const;

/**
 * `area` groups the routes of one deployment stack (the route table's area): endpoint figures are
 * also published per area, which the area's alarms read at a constant cost per area.
 */
export const DIMENSION = {
  service: 'service',
  route: 'route',
  area: 'area',
  status: 'status',
  source: 'source',
} as const;
