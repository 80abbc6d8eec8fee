import { parseStageThresholds, type StageThresholds } from './domain/account/organization-settings.ts';
import { type Budget, parseKeyGuessLimit, parseRateLimits, type RateClass } from './domain/account/rate-limits.ts';

export const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') throw new Error(`Missing required environment variable ${name}`);
  return value;
};

const optional = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
};

/** A share from 0 to 1; unset, `inLambda` in Lambda and 1 elsewhere (local gateway, invoke, tests). */
const fraction = (name: string, inLambda: number): number => {
  const value = optional(name);
  if (value === undefined) return optional('AWS_LAMBDA_FUNCTION_NAME') === undefined ? 1 : inLambda;
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value.trim())) throw new Error(`${name} must be a fraction from 0 to 1`);
  return Number(value);
};

const nonNegative = (name: string, fallback: number): number => {
  const value = optional(name);
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value)) throw new Error(`${name} must be a non-negative integer`);
  return Number(value);
};

/** A resource that is an AWS one in AWS (`awsName`) and a local one locally (`localName`); the AWS one wins. */
const awsOrLocal = (awsName: string, localName: string): { aws: string } | { local: string } | undefined => {
  const aws = optional(awsName);
  if (aws) return { aws };
  const local = optional(localName);
  return local ? { local } : undefined;
};

const requiredAwsOrLocal = (awsName: string, localName: string): { aws: string } | { local: string } => {
  const setting = awsOrLocal(awsName, localName);
  if (setting === undefined) {
    throw new Error(`Missing required environment variable ${awsName} (in AWS) or ${localName} (locally)`);
  }
  return setting;
};

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The environment, read and validated when a value is first used (in Lambda: at cold start, when a
 * function builds its dependencies), so importing this module captures nothing. Nothing else
 * reads process.env.
 */
export const config = {
  /** The `service` dimension of metrics (in AWS `asset-protection-<stage>`); log lines leave it to their log group. */
  get serviceName(): string {
    return optional('SERVICE_NAME') ?? 'asset-protection-local';
  },
  /** DEBUG, INFO (default), WARN, ERROR, or SILENT (tests and benchmarks). */
  get logLevel(): LogLevel {
    const level = (optional('LOG_LEVEL') ?? 'INFO').toUpperCase();
    const known = LOG_LEVELS.find((candidate) => candidate === level);
    if (!known) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
    return known;
  },
  /** The route a function serves (the `route` dimension of its metrics); locally the function name says it. */
  get routeName(): string | undefined {
    return optional('ROUTE_NAME');
  },
  /** The area (deployment stack) of the route a function serves: the `area` dimension of its endpoint figures. */
  get routeArea(): string | undefined {
    return optional('ROUTE_AREA');
  },
  /**
   * The share (0 to 1) of the successful requests of the check routes (SAMPLED_ROUTES in
   * shared/http/telemetry.ts) that write an access line; every other access line is always written.
   * Unset: 0.01 in Lambda, where the check takes most of the requests and a line per request would
   * be most of its cost; 1 elsewhere (local gateway, invoke, tests), so local logs stay complete.
   */
  get accessLogSampleRate(): number {
    return fraction('ACCESS_LOG_SAMPLE_RATE', 0.01);
  },
  /** Required by every function that touches the table; the list sync does not. */
  get tableName(): string {
    return required('TABLE_NAME');
  },
  /**
   * Whether Lambda initializes this environment ahead of its first request (provisioned
   * concurrency, SnapStart). Only then does loading at init what the first request needs (the
   * verdict replica, the external lists) spare that request anything: on demand, init and the
   * first request run back to back, so the load waits for first use and the module loads sooner.
   */
  get initializedAhead(): boolean {
    const type = optional('AWS_LAMBDA_INITIALIZATION_TYPE');
    return type === 'provisioned-concurrency' || type === 'snap-start';
  },
  /** DynamoDB Local's address; unset in AWS. */
  get dynamoEndpoint(): string | undefined {
    return optional('DYNAMODB_ENDPOINT');
  },
  /**
   * Where the `next_page` cursor keys come from: a Secrets Manager secret in AWS, the key set (or
   * a single secret) itself locally. Read (and required) only by functions that page.
   */
  get cursorKeys(): { secretArn: string } | { keySet: string } {
    const setting = requiredAwsOrLocal('CURSOR_SECRET_ARN', 'CURSOR_SECRET');
    return 'aws' in setting ? { secretArn: setting.aws } : { keySet: setting.local };
  },
  /** Where the asset check's external list snapshots live: an S3 bucket in AWS, a directory locally. */
  get listSnapshots(): { bucket: string } | { dir: string } {
    const setting = requiredAwsOrLocal('LISTS_BUCKET', 'LISTS_DIR');
    return 'aws' in setting ? { bucket: setting.aws } : { dir: setting.local };
  },
  /**
   * Where snapshots of the service's verdicts live: an S3 bucket in AWS, a directory locally; unset,
   * a replica reads the index itself at cold start.
   */
  get verdictSnapshots(): { bucket: string } | { dir: string } | undefined {
    const setting = awsOrLocal('VERDICTS_BUCKET', 'VERDICTS_DIR');
    if (setting === undefined) return undefined;
    return 'aws' in setting ? { bucket: setting.aws } : { dir: setting.local };
  },
  /**
   * Where the blocklist's artifacts live: an S3 bucket in AWS (served by the CDN), a directory
   * locally; unset, the process's memory (the local gateway serves them from there).
   */
  get blocklistArtifacts(): { bucket: string } | { dir: string } | undefined {
    const setting = awsOrLocal('BLOCKLIST_BUCKET', 'BLOCKLIST_DIR');
    if (setting === undefined) return undefined;
    return 'aws' in setting ? { bucket: setting.aws } : { dir: setting.local };
  },
  /**
   * Where the blocklist's manifest signing keys are: a Secrets Manager secret in AWS, a file locally
   * (unset: `.data/blocklist-signing-keys.json` of the working directory), created on first use.
   */
  get blocklistSigningKeys(): { secretArn: string } | { file: string } {
    const setting = awsOrLocal('BLOCKLIST_SIGNING_SECRET_ARN', 'BLOCKLIST_SIGNING_KEY_FILE');
    if (setting === undefined) return { file: '.data/blocklist-signing-keys.json' };
    return 'aws' in setting ? { secretArn: setting.aws } : { file: setting.local };
  },
  /** The CDN address artifacts are served at in AWS (`https://<domain>`); unset, the API itself serves them. */
  /**
   * Whether prefix sync also publishes the external lists the check consults (`BLOCKLIST_EXTERNAL_LISTS`
   * `on`, the default, or `off`), so a synced client reaches the check's verdict on list-blocked content.
   */
  get blocklistExternalLists(): boolean {
    const value = (optional('BLOCKLIST_EXTERNAL_LISTS') ?? 'on').toLowerCase();
    if (value !== 'on' && value !== 'off') throw new Error('BLOCKLIST_EXTERNAL_LISTS must be on or off');
    return value === 'on';
  },
  get blocklistCdnUrl(): string | undefined {
    return optional('BLOCKLIST_CDN_URL');
  },
  /** Where the activity ingest function moves messages that can never apply. */
  get deadLetterQueueUrl(): string {
    return required('DEAD_LETTER_QUEUE_URL');
  },
  /** The queue of scans (SQS) in AWS; unset locally, where scans run in the same process. */
  get scanQueueUrl(): string | undefined {
    return optional('SCAN_QUEUE_URL');
  },
  /**
   * The share (0 to 1) of the check's unknown answers sampled for the ASSET_CHECK detection source.
   * Unset: 0.1 in Lambda (a lookalike checked ten times is sampled almost surely); 1 elsewhere.
   */
  get checkSampleRate(): number {
    return fraction('CHECK_SAMPLE_RATE', 0.1);
  },
  /** The SQS queue of detection runs (AWS); unset locally, where runs go through an in-process queue. */
  get detectionQueueUrl(): string | undefined {
    return optional('DETECTION_QUEUE_URL');
  },
  /** Locally, the file of registered names the DNS_TWIST resolver answers from; unset in AWS (real DNS). */
  get detectionDnsFixture(): string | undefined {
    return optional('DETECTION_DNS_FIXTURE');
  },
  /** Locally, the module of the workers run in this process where AWS has a queue (the local gateway sets it); unset in AWS. */
  localWorkers: (): string | undefined => optional('LOCAL_WORKERS'),
  /** Locally, a recorded certificate-transparency log replayed for every CERTSTREAM log; unset in AWS. */
  get detectionCtRecording(): string | undefined {
    return optional('DETECTION_CT_RECORDING');
  },
  /** Locally, a recorded static-CT log (a folder laid out as its monitoring prefix) replayed for every static log; unset in AWS. */
  get detectionCtStaticRecording(): string | undefined {
    return optional('DETECTION_CT_STATIC_RECORDING');
  },
  /** JSON object of external list URLs by source name, fetched by the list sync function. */
  get listUrls(): string | undefined {
    return optional('LIST_URLS');
  },
  /**
   * Overrides of the failure policy's timeouts (milliseconds), for a local table on a loaded machine;
   * unset in AWS, where the defaults of shared/db/client.ts apply.
   */
  get storeTimeouts(): { connectionMs?: number; attemptMs?: number; callBudgetMs?: number; requestBudgetMs?: number } {
    const connection = optional('STORE_CONNECTION_TIMEOUT_MS');
    const attempt = optional('STORE_ATTEMPT_TIMEOUT_MS');
    const budget = optional('STORE_CALL_BUDGET_MS');
    const request = optional('STORE_REQUEST_BUDGET_MS');
    return {
      ...(connection === undefined ? {} : { connectionMs: Number(connection) }),
      ...(attempt === undefined ? {} : { attemptMs: Number(attempt) }),
      ...(budget === undefined ? {} : { callBudgetMs: Number(budget) }),
      ...(request === undefined ? {} : { requestBudgetMs: Number(request) }),
    };
  },
  /** The stage's healthcheck thresholds (`HEALTHCHECK_THRESHOLDS`, JSON by healthcheck key); unset: the built-in ones. */
  get healthcheckThresholds(): StageThresholds {
    try {
      return parseStageThresholds(optional('HEALTHCHECK_THRESHOLDS'));
    } catch (error) {
      throw new Error(`HEALTHCHECK_THRESHOLDS: ${(error as Error).message}`);
    }
  },
  /** Reviews one organization may make per rolling 24 hours (default 10, the published budget); 0 means unlimited. */
  get reviewDailyLimit(): number {
    return nonNegative('REVIEW_DAILY_LIMIT', 10);
  },
  /**
   * The stage's rate-limit budget per route class: `RATE_LIMITS` such as
   * `check=100/200,read=20/40` (`<class>=<perSecond>/<burst>`); unnamed classes keep the defaults of
   * shared/domain/rate-limits.ts. A key's own limits override these.
   */
  get rateLimits(): Record<RateClass, Budget> {
    return parseRateLimits(optional('RATE_LIMITS'));
  },
  /**
   * The budget of failed key lookups per source address, per container: `KEY_GUESS_LIMIT` as
   * `<perSecond>/<burst>` (default `1/50`, shared/domain/rate-limits.ts).
   */
  get keyGuessLimit(): Budget {
    return parseKeyGuessLimit(optional('KEY_GUESS_LIMIT'));
  },
  /**
   * Whether webhook receivers may be `http://127.0.0.1:<port>` or `http://localhost:<port>`
   * (`WEBHOOK_ALLOW_LOOPBACK=true`, set by the local runtime). Never in AWS, whatever is set.
   */
  get webhookAllowLoopback(): boolean {
    if (optional('AWS_LAMBDA_FUNCTION_NAME') !== undefined) return false;
    return optional('WEBHOOK_ALLOW_LOOPBACK') === 'true';
  },
  /** Where webhook signing secrets are sealed: a KMS key (in AWS) or a key file (locally). */
  get webhookSecrets(): { aws: string } | { local: string } {
    return requiredAwsOrLocal('WEBHOOK_SECRETS_KEY_ID', 'WEBHOOK_SECRETS_KEY_FILE');
  },
  /** The queue deliveries go through in AWS; locally the runtime's in-process queue takes them. */
  get webhookQueueUrl(): string | undefined {
    return optional('WEBHOOK_QUEUE_URL');
  },
  /** The first retry of a failed delivery waits about this long; each later one twice as long. */
  get webhookBackoffMs(): number {
    return nonNegative('WEBHOOK_BACKOFF_MS', 30_000);
  },
  /** How long a receiver has to answer one delivery. */
  get webhookTimeoutMs(): number {
    return nonNegative('WEBHOOK_TIMEOUT_MS', 5_000);
  },
  /**
   * What a report id is appended to for the `reportUrl` of `POST /asset/details`
   * (`REPORT_URL_BASE`, from the stage's `reportUrlBase`); unset, the stage's own public report page.
   */
  get reportUrlBase(): string | undefined {
    return optional('REPORT_URL_BASE');
  },
  /** Comma-separated domains nobody may report (they and their subdomains). */
  get reportIgnoredDomains(): string[] {
    return (optional('REPORT_IGNORED_DOMAINS') ?? '')
      .split(',')
      .map((domain) => domain.trim().toLowerCase())
      .filter(Boolean);
  },
};
