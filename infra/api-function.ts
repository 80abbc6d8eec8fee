import { dirname } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, type IGrantable, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PARTITIONS } from '../shared/db/keys.ts';
import { PUBLIC_SUFFIXES_FILE } from '../shared/domain/check/index.ts';
import { bundlingFor } from './bundling.ts';
import { WORKER_WRITES, type Worker } from './routes.ts';

export const PROJECT_ROOT = new URL('..', import.meta.url).pathname;

/** The stage's settings the functions read, as the operator sets them (`-c <name>=…`), each with its variable. */
export type StageSettings = {
  /**
   * `RATE_LIMITS`: the stage's per-key budgets per route class, `<class>=<perSecond>/<burst>`
   * comma-separated; classes not named keep the defaults of shared/domain/account/rate-limits.ts.
   */
  rateLimits?: string;
  /** `KEY_GUESS_LIMIT`: failed key lookups per source address, `<perSecond>/<burst>` (default `1/50`). */
  keyGuessLimit?: string;
  /** `REVIEW_DAILY_LIMIT`: proposal reviews per organization per rolling 24 hours (default 10; 0: unlimited). */
  reviewDailyLimit?: number;
  /**
   * `REPORT_URL_BASE`: what a report id is appended to for the `reportUrl` of `POST /asset/details`;
   * unset, the stage's own public report page (`GET /v2/reports/{id}`) on the host the client called.
   */
  reportUrlBase?: string;
  /** `HEALTHCHECK_THRESHOLDS`: the healthcheck thresholds, JSON by healthcheck key (checked at synth); an organization's own override them. */
  healthcheckThresholds?: string;
  /** `BLOCKLIST_EXTERNAL_LISTS=off` when false: prefix sync publishes only the service's verdicts, not the external lists the check consults (default on). */
  blocklistExternalLists?: boolean;
};

/** What every function of one stage shares. */
export type FunctionSettings = StageSettings & {
  /** Active X-Ray tracing of each invocation. */
  tracing: boolean;
  /** `LOG_LEVEL` of the functions: DEBUG, INFO, WARN or ERROR. */
  logLevel: string;
  /** The `service` field of every log line and the `service` dimension of every metric. */
  serviceName: string;
};

export type ServiceFunctionProps = {
  /** Handler module, relative to the project root; it exports `handler`. */
  entry: string;
  settings: FunctionSettings;
  environment?: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
  /** Files read at run time, relative to the project root; copied into the bundle at the same path. */
  files?: readonly string[];
  /**
   * Traced only when the caller's request is sampled (PassThrough) even where the stage traces
   * actively: for the routes called per visited URL, whose traces would cost more than the request.
   */
  untraced?: boolean;
};

/**
 * The files a function reads at run time besides its bundle: its own, and the Public Suffix List,
 * which every function that canonicalizes content reads on first use (shipped to all: 100 kB of
 * the zip is cheaper than a list of who needs it that could fall behind the code).
 */
export const shippedFiles = (files: readonly string[] = []): string[] => [PUBLIC_SUFFIXES_FILE, ...files];

/** Copies `files` into the bundle so the function finds them where it runs (`/var/task`). */
const copyFiles = (files: readonly string[]) => ({
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir: string, outputDir: string) =>
    files.map((file) => `mkdir -p "${outputDir}/${dirname(file)}" && cp "${inputDir}/${file}" "${outputDir}/${file}"`),
});

/** How each function was bundled: its entry, and whether with the tracer (`bundlingFor`). */
const bundles = new WeakMap<NodejsFunction, { entry: string; traced: boolean }>();
/** How `fn` was bundled, for auditing its bundle with the same esbuild options (`esbuildOptions`). */
export const bundleOf = (fn: NodejsFunction): { entry: string; traced: boolean } | undefined => bundles.get(fn);

/**
 * Every function of the service is built the same way: Node 24 on arm64, bundled by esbuild
 * (`BUNDLING`: minified CJS, a source map read at the first stack trace), with its own log group kept for a month, and a role that may write to that log group and nothing
 * else until a grant adds to it (instead of the managed AWSLambdaBasicExecutionRole, which
 * allows every log group of the account).
 */
export const serviceFunction = (scope: Construct, id: string, props: ServiceFunctionProps): NodejsFunction => {
  const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH });
  const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  // Both modes write segments (PassThrough when the caller's request is sampled).
  if (props.settings.tracing) {
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    });
  }
  const tracing = !props.settings.tracing ? Tracing.DISABLED : props.untraced ? Tracing.PASS_THROUGH : Tracing.ACTIVE;
  // Only actively traced functions carry the Powertools tracer (shared/tracing.ts); the others are
  // built without it and told so, as the tracer reads the same variable.
  const traced = tracing === Tracing.ACTIVE;
  const fn = new NodejsFunction(scope, id, {
    entry: `${PROJECT_ROOT}${props.entry}`,
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize ?? 512,
    timeout: props.timeout ?? Duration.seconds(10),
    bundling: { ...bundlingFor(traced), commandHooks: copyFiles(shippedFiles(props.files)) },
    environment: {
      SERVICE_NAME: props.settings.serviceName,
      LOG_LEVEL: props.settings.logLevel,
      ...(traced ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
      ...props.environment,
    },
    tracing,
    role,
    logGroup,
    // JSON lines with a level, so that Lambda drops its own START, END and REPORT lines (INFO) and
    // keeps its warnings; the function's own lines (Powertools JSON, EMF as INFO) pass at INFO, or
    // DEBUG when the function logs at DEBUG.
    loggingFormat: LoggingFormat.JSON,
    systemLogLevelV2: SystemLogLevel.WARN,
    applicationLogLevelV2: props.settings.logLevel === 'DEBUG' ? ApplicationLogLevel.DEBUG : ApplicationLogLevel.INFO,
  });
  bundles.set(fn, { entry: props.entry, traced });
  return fn;
};

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
export const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/** Partitions only the operator's tools write: API keys, users and memberships, organizations and brands. */
export const OPERATOR_PARTITIONS = [PARTITIONS.apiKey, PARTITIONS.user, PARTITIONS.organization] as const;

/**
 * Table actions on the table and on the named indexes only; `table.grant*` would add every
 * index (`index/*`), and `grantReadData` adds Scan, which no function uses.
 */
export const grantTable = (
  table: ITable,
  grantee: IGrantable,
  actions: readonly string[],
  indexes: readonly string[] = [],
): void => {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...actions],
      resources: [table.tableArn, ...indexes.map((index) => `${table.tableArn}/index/${index}`)],
    }),
  );
};

/**
 * Item-level least privilege: writes (inside transactions too) to the partitions whose keys match
 * `partitions` (IAM patterns of the partition key, e.g. `ORG#*`), and an explicit deny on the
 * operator's partitions whatever else is granted. A function with nothing to write gets only the deny;
 * `actions` narrows the write actions granted.
 */
export const grantTableWrites = (
  table: ITable,
  grantee: IGrantable,
  partitions: readonly string[],
  actions: readonly string[] = WRITE_ACTIONS,
): void => {
  const principal = grantee.grantPrincipal;
  if (partitions.length > 0) {
    principal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...actions],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] } },
      }),
    );
  }
  principal.addToPrincipalPolicy(
    new PolicyStatement({
      effect: Effect.DENY,
      actions: WRITE_ACTIONS,
      resources: [table.tableArn],
      conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [...OPERATOR_PARTITIONS] } },
    }),
  );
};

/**
 * A worker's table access: reads (GetItem, BatchGetItem, Query) of the table and of `indexes`, and
 * writes to the partitions its entry in WORKER_WRITES declares.
 */
export const grantWorkerTable = (
  table: ITable,
  grantee: IGrantable,
  worker: Worker,
  indexes: readonly string[] = [],
): void => {
  grantTable(table, grantee, READ_ACTIONS, indexes);
  grantTableWrites(table, grantee, WORKER_WRITES[worker]);
};

export type ApiFunctionProps = ServiceFunctionProps & {
  table: ITable;
  access: 'read' | 'write' | 'none';
  /** The table indexes the function queries. */
  indexes?: readonly string[];
  /** The partitions (IAM patterns of the partition key) a `write` function writes. */
  writes?: readonly string[];
  /** The `area` dimension of the function's endpoint figures, which its area's alarms read. */
  area: string;
};

/** A route's function, granted reads on the table and the indexes it queries, and writes to its own partitions, nothing wider. */
export class ApiFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    // ROUTE_NAME and ROUTE_AREA: the `route` and `area` dimensions of the function's endpoint metrics, which the alarms read.
    const environment = {
      ROUTE_NAME: id,
      ROUTE_AREA: props.area,
      ...(props.access === 'none' ? {} : { TABLE_NAME: props.table.tableName }),
      ...(props.settings.rateLimits ? { RATE_LIMITS: props.settings.rateLimits } : {}),
      ...(props.settings.keyGuessLimit ? { KEY_GUESS_LIMIT: props.settings.keyGuessLimit } : {}),
      ...(props.settings.reviewDailyLimit === undefined
        ? {}
        : { REVIEW_DAILY_LIMIT: String(props.settings.reviewDailyLimit) }),
      ...(props.settings.reportUrlBase ? { REPORT_URL_BASE: props.settings.reportUrlBase } : {}),
      ...(props.settings.blocklistExternalLists === false ? { BLOCKLIST_EXTERNAL_LISTS: 'off' } : {}),
      ...(props.settings.healthcheckThresholds && props.area === 'insights'
        ? { HEALTHCHECK_THRESHOLDS: props.settings.healthcheckThresholds }
        : {}),
      ...props.environment,
    };
    this.fn = serviceFunction(this, 'Function', { ...props, environment });
    if (props.access === 'none') return;
    grantTable(props.table, this.fn, READ_ACTIONS, props.indexes);
    grantTableWrites(props.table, this.fn, props.access === 'write' ? (props.writes ?? []) : []);
  }
}
