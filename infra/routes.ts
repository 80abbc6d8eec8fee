import { PAGES, STATIC_FILES } from '../functions/pages/files.ts';
import { ACTIVITY_INDEX, EXPORT_INDEX, INDEX, PARTITIONS, type TablePartition } from '../shared/db/keys.ts';
import { SHIPPED_ETH_LIST } from '../shared/db/list-snapshot-store.ts';
import { HEALTHCHECK_KEYS } from '../shared/domain/account/organization-settings.ts';
import type { RateClass } from '../shared/domain/account/rate-limits.ts';

/**
 * The single source of truth for HTTP routing: the CDK stack makes one function and one API
 * route per entry, and the local gateway serves the same entries from the same modules.
 */
/** The version base every route is served under, the one the API's address names. */
export const BASE_PATH = '/v2';
/** Every base a route answers under, same handler: clients also build `<host>/api/v2/...`. */
export const BASE_PATHS = [BASE_PATH, '/api/v2'] as const;

/**
 * The areas of the API. Each is deployed as a stack of its own (nested in the service stack), so
 * the CloudFormation resource limit applies per area, and its alarms watch its routes together.
 */
export const AREAS = [
  'allowlist',
  'check',
  'lookups',
  'lifecycle',
  'insights',
  'pages',
  // Areas of the published API still to be served; an area with no route deploys nothing.
  'blocklist',
  'webhooks',
  'intake',
  'detections',
  'account',
  'taxii',
] as const;
export type Area = (typeof AREAS)[number];

export type Route = {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to the `/v2` base; `{name}` segments become path parameters. */
  path: string;
  /** Stable function id, also the name `npm run invoke` takes. */
  name: string;
  /** The stack the route is deployed in; moving a route to another area replaces its function. */
  area: Area;
  /** Handler module, relative to the project root; it exports `handler`. */
  entry: string;
  /** What the function may do to the table (least privilege); `none` gets no table at all. */
  access: 'read' | 'write' | 'none';
  /**
   * The partitions a `write` route's function writes (Put, Update, Delete, and ConditionCheck, in
   * transactions too), as IAM patterns of their partition keys: its role may write no other
   * (`dynamodb:LeadingKeys`), and the local gateway refuses any other write as DynamoDB would then.
   */
  writes?: readonly TablePartition[];
  /**
   * The per-key rate-limit budget the route spends; none for the public routes. The
   * handler declares the same class in its `apiHandler` options, which is what limits at run time.
   */
  rateClass?: RateClass;
  /** Answers without an API key: the API description and the pages. */
  public?: boolean;
  /**
   * Served at the host root, outside every base (TAXII's discovery must be at `/taxii2/`); its
   * `path` is then relative to the host, spelled as TAXII spells it.
   */
  root?: boolean;
  /** Files the function reads at run time, relative to the project root; bundled at the same path. */
  files?: readonly string[];
  /** Lambda CPU scales with memory; the hot path gets more. Default 512 MB. */
  memorySize?: number;
  /** The function's timeout in seconds, for work that grows with the request; default 10, at most API Gateway's 30 less a second. */
  timeoutSeconds?: number;
  /** Reads the asset check's external list snapshots (and the list eth-phishing-detect ships, in its `files`). */
  readsCheckLists?: boolean;
  /** The table indexes its function queries; it is granted these and no other. */
  indexes?: readonly string[];
  /** Seals or opens `next_page` cursors: gets the cursor key set. */
  readsCursorKey?: boolean;
  /** Keeps a replica of the service's verdicts: reads their snapshots. */
  readsVerdicts?: boolean;
  /** Called per visited URL: traced only when the caller's request is sampled, never by the stage. */
  untraced?: boolean;
  /**
   * The hash-prefix blocklist's artifacts: `read` serves them from their bucket, `write` also stores
   * them (and names the CDN in front of the bucket).
   */
  blocklistArtifacts?: 'read' | 'write';
  /** Signs the blocklist's manifests: the only function that reads the signing key's secret. */
  signsBlocklist?: boolean;
  /** Puts scans on the scan queue (SCAN_QUEUE_URL) for its worker. */
  startsScans?: boolean;
  /** Creates webhooks: may encrypt (never decrypt) with the key that seals their signing secrets. */
  sealsWebhookSecrets?: boolean;
  /** Queues webhook deliveries: may send to the delivery queue. */
  queuesWebhookDeliveries?: boolean;
  /** Queues detection runs: may send to the run queue (DETECTION_QUEUE_URL). */
  queuesDetectionRuns?: boolean;
  /** Logs samples of unknown content: its log group is subscribed to by the ASSET_CHECK sample worker. */
  samplesCheckContent?: boolean;
};

const { organizationScoped, asset, groupRemoval, checkEntry, verdictLog, activity, claim, budget, metrics } =
  PARTITIONS;
/**
 * Moving an asset's allowlisting or a threat's block: the check-index entry, its change in the
 * verdict log, and the new version in the organization's TAXII collection.
 */
const VERDICTS = [checkEntry, verdictLog, PARTITIONS.taxii] as const;
/**
 * A lifecycle commit (`activityRepository().commitMany`): records, their day counters, the claims
 * of pending proposals; a record that blocks or unblocks content moves the check index too.
 */
const LIFECYCLE = [activity, metrics, claim, ...VERDICTS] as const;

/** The four sparse listing indexes of the threat lifecycle (reports, threats, takedowns). */
const LIFECYCLE_LISTS = [ACTIVITY_INDEX.list1, ACTIVITY_INDEX.list2, ACTIVITY_INDEX.list3, ACTIVITY_INDEX.list4].map(
  (index) => index.name,
);

/** The blocklist's version and confirm routes: both read the verdicts and the external lists and publish the artifacts. */
const BLOCKLIST_SERVING = {
  access: 'read',
  rateClass: 'check',
  memorySize: 1024,
  readsVerdicts: true,
  readsCheckLists: true,
  files: [SHIPPED_ETH_LIST],
  blocklistArtifacts: 'write',
} as const;

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/organization/asset-groups',
    name: 'list-asset-groups',
    area: 'allowlist',
    entry: 'functions/asset-groups/list.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/organization/asset-groups',
    name: 'create-asset-group',
    area: 'allowlist',
    entry: 'functions/asset-groups/create.ts',
    access: 'write',
    rateClass: 'write',
    // The counter of group ids, the group and its name item.
    writes: [organizationScoped],
  },
  {
    method: 'PATCH',
    path: '/organization/asset-groups/{groupId}',
    name: 'update-asset-group',
    area: 'allowlist',
    entry: 'functions/asset-groups/update.ts',
    access: 'write',
    rateClass: 'write',
    // The group and its old and new name items.
    writes: [organizationScoped],
  },
  {
    method: 'DELETE',
    path: '/organization/asset-groups/{groupId}',
    name: 'delete-asset-group',
    area: 'allowlist',
    entry: 'functions/asset-groups/delete.ts',
    access: 'write',
    rateClass: 'write',
    // The group, its name and its removal; then ungroups its assets for up to 1.5 s.
    writes: [organizationScoped, groupRemoval, asset],
    indexes: [INDEX.byGroup.name],
  },
  {
    method: 'GET',
    path: '/organization/assets',
    name: 'list-assets',
    area: 'allowlist',
    entry: 'functions/assets/list.ts',
    access: 'read',
    rateClass: 'read',
    indexes: Object.values(INDEX).map((index) => index.name),
    readsCursorKey: true,
  },
  {
    method: 'POST',
    path: '/organization/assets',
    name: 'create-assets',
    area: 'allowlist',
    entry: 'functions/assets/create.ts',
    access: 'write',
    rateClass: 'write',
    // Assets, their identity items and group counts, the staged assets and marker of a bulk add; an
    // ALLOWED asset allowlists its content.
    writes: [asset, organizationScoped, ...VERDICTS],
    // 1,000 assets are staged, committed and published in about 40 transactions: the deadline grows with them (create.ts).
    timeoutSeconds: 29,
  },
  {
    method: 'PATCH',
    path: '/organization/assets/{assetId}',
    name: 'update-asset',
    area: 'allowlist',
    entry: 'functions/assets/update.ts',
    access: 'write',
    rateClass: 'write',
    // The asset and the counts of the groups it leaves and joins (or of a deleted group's removal).
    writes: [asset, organizationScoped, groupRemoval],
  },
  {
    method: 'DELETE',
    path: '/organization/assets/{assetId}',
    name: 'delete-asset',
    area: 'allowlist',
    entry: 'functions/assets/delete.ts',
    access: 'write',
    rateClass: 'write',
    // As update-asset, the identity item, and the withdrawal of its allowlisting.
    writes: [asset, organizationScoped, groupRemoval, ...VERDICTS],
  },
  {
    method: 'GET',
    path: '/organization/metrics',
    name: 'get-metrics',
    area: 'insights',
    entry: 'functions/metrics/get.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/public/getOrganizationMetrics',
    name: 'get-public-metrics',
    area: 'insights',
    entry: 'functions/metrics/public.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/asset/check',
    name: 'check-asset',
    area: 'check',
    entry: 'functions/check/check.ts',
    access: 'read',
    rateClass: 'check',
    memorySize: 1024,
    readsCheckLists: true,
    files: [SHIPPED_ETH_LIST],
    readsVerdicts: true,
    untraced: true,
    samplesCheckContent: true,
  },
  {
    method: 'GET',
    path: '/asset/blocklist/version',
    name: 'get-blocklist-version',
    area: 'check',
    entry: 'functions/check/blocklist-version.ts',
    ...BLOCKLIST_SERVING,
    signsBlocklist: true,
    untraced: true,
  },
  {
    method: 'POST',
    path: '/asset/changelog',
    name: 'get-changelog',
    area: 'check',
    entry: 'functions/check/changelog.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/asset/list',
    name: 'list-verdicts',
    area: 'lookups',
    entry: 'functions/lookups/list.ts',
    access: 'read',
    rateClass: 'read',
    indexes: [EXPORT_INDEX.name],
    readsCursorKey: true,
  },
  {
    method: 'GET',
    path: '/openapi.json',
    name: 'get-openapi',
    area: 'pages',
    entry: 'functions/pages/openapi.ts',
    access: 'none',
    public: true,
  },
  {
    method: 'GET',
    path: '/docs',
    name: 'get-docs-page',
    area: 'pages',
    entry: 'functions/pages/docs.ts',
    access: 'none',
    public: true,
    files: [PAGES.docs.path],
  },
  {
    method: 'GET',
    path: '/dashboard',
    name: 'get-dashboard-page',
    area: 'pages',
    entry: 'functions/pages/dashboard.ts',
    access: 'none',
    public: true,
    files: [PAGES.dashboard.path],
  },
  {
    method: 'GET',
    path: '/static/{file}',
    name: 'get-static-file',
    area: 'pages',
    entry: 'functions/pages/static.ts',
    access: 'none',
    public: true,
    files: Object.values(STATIC_FILES).map((file) => file.path),
  },
  // The threat lifecycle: reports, reviews, brands, lists and lookups.
  {
    method: 'POST',
    path: '/report/create',
    name: 'create-report',
    area: 'lifecycle',
    entry: 'functions/reports/create.ts',
    access: 'write',
    rateClass: 'report',
    // The report, its proposals and their claims; rolling back an abandoned report withdraws its
    // proposals, reviewed ones too, with what they counted and blocked.
    writes: LIFECYCLE,
  },
  {
    method: 'GET',
    path: '/organization/reports',
    name: 'list-reports',
    area: 'lifecycle',
    entry: 'functions/reports/list.ts',
    access: 'read',
    rateClass: 'read',
    indexes: LIFECYCLE_LISTS,
    readsCursorKey: true,
  },
  {
    method: 'POST',
    path: '/organization/proposals/{proposalId}/review',
    name: 'review-proposal',
    area: 'lifecycle',
    entry: 'functions/proposals/review.ts',
    access: 'write',
    rateClass: 'write',
    // The threat, its report, a takedown, their effects, the released claim and the day's review budget.
    writes: [...LIFECYCLE, budget],
  },
  {
    method: 'POST',
    path: '/threats/list',
    name: 'list-threats',
    area: 'lifecycle',
    entry: 'functions/threats/list.ts',
    access: 'read',
    rateClass: 'read',
    indexes: LIFECYCLE_LISTS,
    readsCursorKey: true,
  },
  {
    method: 'POST',
    path: '/takedowns/list',
    name: 'list-takedowns',
    area: 'lifecycle',
    entry: 'functions/takedowns/list.ts',
    access: 'read',
    rateClass: 'read',
    indexes: [ACTIVITY_INDEX.list1.name, ACTIVITY_INDEX.list2.name],
    readsCursorKey: true,
  },
  {
    method: 'GET',
    path: '/organization/brands',
    name: 'list-brands',
    area: 'lifecycle',
    entry: 'functions/brands/list.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/asset/details',
    name: 'asset-details',
    area: 'lookups',
    entry: 'functions/lookups/details.ts',
    access: 'read',
    rateClass: 'read',
    readsCheckLists: true,
    files: [SHIPPED_ETH_LIST],
    indexes: [ACTIVITY_INDEX.byAsset.name],
  },
  {
    method: 'POST',
    path: '/asset/search',
    name: 'search-asset',
    area: 'lookups',
    entry: 'functions/lookups/search.ts',
    access: 'read',
    rateClass: 'read',
    readsCheckLists: true,
    files: [SHIPPED_ETH_LIST],
    indexes: [ACTIVITY_INDEX.byAsset.name],
  },
  // Lookups: the public report page the lookups' report links lead to.
  {
    method: 'GET',
    path: '/reports/{reportId}',
    name: 'get-report-page',
    area: 'pages',
    entry: 'functions/pages/report.ts',
    access: 'read',
    public: true,
    indexes: [ACTIVITY_INDEX.byAsset.name],
  },
  // Intake: parsing chat text, disputes of false positives, unblocking, submissions and scans.
  {
    method: 'POST',
    path: '/asset/parse',
    name: 'parse-assets',
    area: 'intake',
    entry: 'functions/intake/parse.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/dispute/create',
    name: 'create-dispute',
    area: 'intake',
    entry: 'functions/intake/dispute.ts',
    access: 'write',
    rateClass: 'report',
    // The dispute and its requester's marker; the check decides whether the service knows the content.
    writes: [PARTITIONS.dispute],
    readsCheckLists: true,
    files: [SHIPPED_ETH_LIST],
    indexes: [ACTIVITY_INDEX.byAsset.name],
  },
  {
    method: 'POST',
    path: '/asset/unblock',
    name: 'unblock-asset',
    area: 'intake',
    entry: 'functions/intake/unblock.ts',
    access: 'write',
    rateClass: 'write',
    // The organization's threats leave their blocking statuses (with their counters and verdicts), or a dispute.
    writes: [activity, metrics, ...VERDICTS, PARTITIONS.dispute],
    readsCheckLists: true,
    files: [SHIPPED_ETH_LIST],
    indexes: [ACTIVITY_INDEX.list1.name, ACTIVITY_INDEX.byAsset.name],
  },
  {
    method: 'POST',
    path: '/asset/submit',
    name: 'submit-assets',
    area: 'intake',
    entry: 'functions/intake/submit.ts',
    access: 'write',
    rateClass: 'report',
    // New scans; the scan worker (a queue away) writes their results.
    writes: [PARTITIONS.scan],
    startsScans: true,
  },
  {
    method: 'POST',
    path: '/asset/scan',
    name: 'start-scan',
    area: 'intake',
    entry: 'functions/intake/scan.ts',
    access: 'write',
    rateClass: 'report',
    writes: [PARTITIONS.scan],
    startsScans: true,
  },
  {
    method: 'POST',
    path: '/scan/result',
    name: 'get-scan-result',
    area: 'intake',
    entry: 'functions/intake/scan-result.ts',
    access: 'read',
    rateClass: 'read',
  }, // The hash-prefix blocklist: wallets match prefixes locally and confirm only their matches.
  {
    method: 'POST',
    path: '/asset/blocklist/confirm',
    name: 'confirm-blocklist-prefixes',
    area: 'blocklist',
    entry: 'functions/blocklist/confirm.ts',
    ...BLOCKLIST_SERVING,
  },
  // Public: the keys that verify the version's signed manifests.
  {
    method: 'GET',
    path: '/asset/blocklist/keys',
    name: 'get-blocklist-keys',
    area: 'pages',
    entry: 'functions/blocklist/keys.ts',
    access: 'none',
    public: true,
    blocklistArtifacts: 'read',
  },
  // Public like the pages: the local gateway's artifact URLs; in AWS the version names the CDN instead.
  {
    method: 'GET',
    path: '/asset/blocklist/artifacts/{token}',
    name: 'get-blocklist-artifact',
    area: 'pages',
    entry: 'functions/blocklist/artifact.ts',
    access: 'none',
    public: true,
    blocklistArtifacts: 'read',
  },
  // Insights and account: metrics v2, healthchecks, queues, report search, the caller's account.
  ...(
    [
      ['/metrics/summary', 'get-metrics-summary', 'functions/insights/summary.ts'],
      ['/metrics/breakdown', 'get-metrics-breakdown', 'functions/insights/breakdown.ts'],
      ['/metrics/found', 'get-metrics-found', 'functions/insights/found.ts'],
      ['/healthchecks/list', 'list-healthchecks', 'functions/healthchecks/list.ts'],
      ['/operations/queues/snapshot', 'get-queues-snapshot', 'functions/insights/queues.ts'],
    ] as const
  ).map(
    ([path, name, entry]): Route => ({
      method: 'POST',
      path,
      name,
      area: 'insights',
      entry,
      access: 'read',
      rateClass: 'read',
    }),
  ),
  // One route per check, all served by the module that reads the check from the path.
  ...HEALTHCHECK_KEYS.map(
    (check): Route => ({
      method: 'POST',
      path: `/healthchecks/${check.replace('.', '/')}`,
      name: `healthcheck-${check.replace('.', '-')}`,
      area: 'insights',
      entry: 'functions/healthchecks/run.ts',
      access: 'read',
      rateClass: 'read',
      // The age checks read their oldest offenders: reports with a pending proposal, IN_PROGRESS takedowns.
      ...(check === 'reviewing.old-proposals' ? { indexes: [ACTIVITY_INDEX.list2.name] } : {}),
      ...(check === 'takedowns.stale-in-progress' ? { indexes: [ACTIVITY_INDEX.list3.name] } : {}),
    }),
  ),
  {
    method: 'POST',
    path: '/reports/search',
    name: 'search-reports',
    area: 'insights',
    entry: 'functions/insights/reports-search.ts',
    access: 'read',
    rateClass: 'read',
    indexes: [ACTIVITY_INDEX.byAsset.name],
  },
  {
    method: 'POST',
    path: '/public/getOrganizationReports',
    name: 'get-public-organization-reports',
    area: 'insights',
    entry: 'functions/insights/organization-reports.ts',
    access: 'read',
    rateClass: 'read',
    indexes: LIFECYCLE_LISTS,
    readsCursorKey: true,
  },
  ...(
    [
      ['POST', '/user/me', 'get-current-user', 'functions/account/me.ts'],
      ['POST', '/user/orgs', 'list-user-organizations', 'functions/account/orgs.ts'],
      ['GET', '/user/orgs/{slug}', 'get-user-organization', 'functions/account/org.ts'],
      ['GET', '/validate', 'validate-key', 'functions/account/validate.ts'],
    ] as const
  ).map(
    ([method, path, name, entry]): Route => ({
      method,
      path,
      name,
      area: 'account',
      entry,
      access: 'read',
      rateClass: 'read',
    }),
  ),
  {
    method: 'POST',
    path: '/user/me/update',
    name: 'update-current-user',
    area: 'account',
    entry: 'functions/account/update-me.ts',
    access: 'write',
    rateClass: 'write',
    // The user's own profile item.
    writes: [PARTITIONS.profile],
  },
  // Webhooks: their configuration, test events and delivery log (events come from the webhook workers).
  {
    method: 'POST',
    path: '/webhook/config',
    name: 'create-webhook',
    area: 'webhooks',
    entry: 'functions/webhooks/create.ts',
    access: 'write',
    writes: [PARTITIONS.webhooks],
    rateClass: 'write',
    sealsWebhookSecrets: true,
  },
  {
    method: 'GET',
    path: '/webhook/config',
    name: 'list-webhooks',
    area: 'webhooks',
    entry: 'functions/webhooks/list.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'PATCH',
    path: '/webhook/config/{id}',
    name: 'update-webhook',
    area: 'webhooks',
    entry: 'functions/webhooks/update.ts',
    access: 'write',
    writes: [PARTITIONS.webhooks],
    rateClass: 'write',
  },
  {
    method: 'DELETE',
    path: '/webhook/config/{id}',
    name: 'delete-webhook',
    area: 'webhooks',
    entry: 'functions/webhooks/delete.ts',
    access: 'write',
    writes: [PARTITIONS.webhooks],
    rateClass: 'write',
  },
  {
    method: 'POST',
    path: '/webhook/config/{id}/test',
    name: 'test-webhook',
    area: 'webhooks',
    entry: 'functions/webhooks/test.ts',
    access: 'write',
    writes: [PARTITIONS.webhookDelivery, PARTITIONS.webhookOpen],
    rateClass: 'write',
    queuesWebhookDeliveries: true,
  },
  {
    method: 'GET',
    path: '/webhook/config/{id}/deliveries',
    name: 'list-webhook-deliveries',
    area: 'webhooks',
    entry: 'functions/webhooks/deliveries.ts',
    access: 'read',
    rateClass: 'read',
  },
  // Detections: brand-impersonation sources, their configs and runs, the findings and their drift.
  {
    method: 'GET',
    path: '/detection/sources',
    name: 'list-detection-sources',
    area: 'detections',
    entry: 'functions/detections/sources.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/detection/configs/list',
    name: 'list-detection-configs',
    area: 'detections',
    entry: 'functions/detections/configs-list.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/detection/configs/create',
    name: 'create-detection-config',
    area: 'detections',
    entry: 'functions/detections/configs-create.ts',
    access: 'write',
    rateClass: 'write',
    // The config and its first history row.
    writes: [PARTITIONS.detection],
  },
  {
    method: 'POST',
    path: '/detection/configs/update',
    name: 'update-detection-config',
    area: 'detections',
    entry: 'functions/detections/configs-update.ts',
    access: 'write',
    rateClass: 'write',
    writes: [PARTITIONS.detection],
  },
  {
    method: 'POST',
    path: '/detection/configs/delete',
    name: 'delete-detection-config',
    area: 'detections',
    entry: 'functions/detections/configs-delete.ts',
    access: 'write',
    rateClass: 'write',
    writes: [PARTITIONS.detection],
  },
  {
    method: 'POST',
    path: '/detection/configs/run',
    name: 'run-detection-configs',
    area: 'detections',
    entry: 'functions/detections/configs-run.ts',
    access: 'write',
    rateClass: 'write',
    // The queued runs; the run worker (a queue away) records detections and files reports.
    writes: [PARTITIONS.detection],
    queuesDetectionRuns: true,
  },
  {
    method: 'POST',
    path: '/detection/configs/validate',
    name: 'validate-detection-configs',
    area: 'detections',
    entry: 'functions/detections/configs-validate.ts',
    access: 'write',
    rateClass: 'write',
    // With `run`, the runs first, as run-detection-configs.
    writes: [PARTITIONS.detection, ...LIFECYCLE],
    readsCheckLists: true,
    files: [SHIPPED_ETH_LIST],
    indexes: [ACTIVITY_INDEX.byAsset.name, INDEX.byType.name],
  },
  {
    method: 'POST',
    path: '/detection/list',
    name: 'list-detections',
    area: 'detections',
    entry: 'functions/detections/list.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'POST',
    path: '/detection/drift',
    name: 'get-detection-drift',
    area: 'detections',
    entry: 'functions/detections/drift.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'GET',
    path: '/taxii2',
    name: 'taxii-discovery',
    area: 'taxii',
    entry: 'functions/taxii/discovery.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'GET',
    path: '/taxii2/',
    name: 'taxii-root-discovery',
    area: 'taxii',
    entry: 'functions/taxii/discovery.ts',
    access: 'read',
    rateClass: 'read',
    root: true,
  },
  {
    method: 'GET',
    path: '/taxii2/api',
    name: 'taxii-api-root',
    area: 'taxii',
    entry: 'functions/taxii/api-root.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'GET',
    path: '/taxii2/api/collections',
    name: 'taxii-list-collections',
    area: 'taxii',
    entry: 'functions/taxii/list-collections.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'GET',
    path: '/taxii2/api/collections/{collectionId}',
    name: 'taxii-get-collection',
    area: 'taxii',
    entry: 'functions/taxii/get-collection.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'GET',
    path: '/taxii2/api/collections/{collectionId}/objects',
    name: 'taxii-get-objects',
    area: 'taxii',
    entry: 'functions/taxii/get-objects.ts',
    access: 'read',
    rateClass: 'read',
    readsCursorKey: true,
  },
  {
    method: 'POST',
    path: '/taxii2/api/collections/{collectionId}/objects',
    name: 'taxii-add-objects',
    area: 'taxii',
    entry: 'functions/taxii/add-objects.ts',
    access: 'write',
    rateClass: 'write',
    // The report and proposals the submitted indicators become (as create-report), the accepted objects and the status.
    writes: LIFECYCLE,
  },
  {
    method: 'GET',
    path: '/taxii2/api/collections/{collectionId}/manifest',
    name: 'taxii-get-manifest',
    area: 'taxii',
    entry: 'functions/taxii/get-manifest.ts',
    access: 'read',
    rateClass: 'read',
    readsCursorKey: true,
  },
  {
    method: 'GET',
    path: '/taxii2/api/collections/{collectionId}/objects/{objectId}',
    name: 'taxii-get-object',
    area: 'taxii',
    entry: 'functions/taxii/get-object.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'DELETE',
    path: '/taxii2/api/collections/{collectionId}/objects/{objectId}',
    name: 'taxii-delete-object',
    area: 'taxii',
    entry: 'functions/taxii/delete-object.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'GET',
    path: '/taxii2/api/collections/{collectionId}/objects/{objectId}/versions',
    name: 'taxii-get-versions',
    area: 'taxii',
    entry: 'functions/taxii/get-versions.ts',
    access: 'read',
    rateClass: 'read',
  },
  {
    method: 'GET',
    path: '/taxii2/api/status/{statusId}',
    name: 'taxii-get-status',
    area: 'taxii',
    entry: 'functions/taxii/get-status.ts',
    access: 'read',
    rateClass: 'read',
  },
];

/** Functions that are not HTTP routes (queue and schedule driven), by the name `npm run invoke` takes. */
export const WORKERS = {
  'ingest-activity': 'functions/activity/ingest.ts',
  'sync-lists': 'functions/check/sync.ts',
  'snapshot-verdicts': 'functions/check/snapshot.ts',
  'publish-verdicts': 'functions/check/publish.ts',
  'resume-interrupted-writes': 'functions/maintenance/resume-writes.ts',
  'run-scans': 'functions/intake/scan-worker.ts',
  'generate-webhook-events': 'functions/webhooks/generate.ts',
  'deliver-webhooks': 'functions/webhooks/deliver.ts',
  'run-detections': 'functions/detections/run-worker.ts',
  'schedule-detections': 'functions/detections/schedule.ts',
  'feed-check-samples': 'functions/detections/check-samples.ts',
} as const;
export type Worker = keyof typeof WORKERS;

/** The partitions each worker writes, as `Route.writes` does for a route. */
export const WORKER_WRITES: Record<Worker, readonly TablePartition[]> = {
  // Records and their effects, no claims: a change of a threat's status moves its block.
  'ingest-activity': [activity, metrics, ...VERDICTS],
  // List snapshots go to S3 (a directory locally), not to the table.
  'sync-lists': [],
  // Reads the verdict log (or scans the check index); the snapshot goes to S3.
  'snapshot-verdicts': [],
  // Reads the verdict log; the feed goes to S3, the lease that makes it the one publisher to the table.
  'publish-verdicts': [PARTITIONS.lease],
  // Rolls back abandoned reports (as create-report does), ungroups the assets of deleted groups, and
  // publishes or undoes interrupted bulk adds (assets, identities, group counts and markers in ORG#).
  'resume-interrupted-writes': [...LIFECYCLE, groupRemoval, asset, organizationScoped],
  // A scan's result, the report a MALICIOUS one files (once per content and organization), and the
  // detections of its organization's push sources (EXTERNAL for a submission, ASSET_CHECK).
  'run-scans': [PARTITIONS.scan, ...LIFECYCLE, PARTITIONS.detection],
  // Reads the verdict log and new detections; records the events' delivery records and its own state.
  'generate-webhook-events': [PARTITIONS.webhooks, PARTITIONS.webhookDelivery, PARTITIONS.webhookOpen],
  // Claims a delivery record, records its events' outcomes.
  'deliver-webhooks': [PARTITIONS.webhookDelivery, PARTITIONS.webhookOpen],
  // A run's detections, its history row and config, and the reports auto-reporting files.
  'run-detections': [PARTITIONS.detection, ...LIFECYCLE],
  // Queued runs and the next times of the configs' listings.
  'schedule-detections': [PARTITIONS.detection],
  // ASSET_CHECK detections of the check's samples, and the reports auto-reporting files.
  'feed-check-samples': [PARTITIONS.detection, ...LIFECYCLE],
};
