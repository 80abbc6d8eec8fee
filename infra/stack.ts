import { CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { CorsHttpMethod, HttpApi, HttpStage, type ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, BillingMode, type ITable, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { parseStageThresholds } from '../shared/domain/account/organization-settings.ts';
import { parseKeyGuessLimit, parseRateLimits } from '../shared/domain/account/rate-limits.ts';
import { ActivityIngest } from './activity-ingest.ts';
import type { FunctionSettings, StageSettings } from './api-function.ts';
import { BlocklistArtifacts } from './blocklist-artifacts.ts';
import { CheckLists, type CheckListsProps } from './check-lists.ts';
import { corsSettings } from './cors.ts';
import { DetectionRuns } from './detection-runs.ts';
import { InterruptedWrites } from './interrupted-writes.ts';
import { apiAccessLog, apiAccessLogGroup, Observability } from './observability.ts';
import { RouteArea } from './route-area.ts';
import { AREAS, BASE_PATH, ROUTES, type Route } from './routes.ts';
import { ScanQueue } from './scan-queue.ts';
import { TABLE_DEFINITION } from './table-definition.ts';
import { VerdictSnapshots } from './verdict-snapshots.ts';
import { WebhookDelivery } from './webhooks.ts';

export type ServiceStackProps = StackProps &
  StageSettings & {
    /** `dev` stages may be torn down with their data; any other stage keeps the table. */
    stage: string;
    throttle?: { rateLimit: number; burstLimit: number };
    /** External list URLs for the asset check, by source (default: polkadot-phishing's public list). */
    checkLists?: CheckListsProps['lists'];
    /** Origins a browser page may call the API from (default `*`). */
    corsOrigins?: readonly string[];
    /** Subscribed to the stack's alarm topic. */
    alarmEmail?: string;
    /** An existing SNS topic the alarms notify instead of a topic of the stack's own. */
    alarmTopicArn?: string;
    /** Active X-Ray tracing of the functions (default: on outside dev stages); the check class is traced only when sampled upstream. */
    tracing?: boolean;
    /** Functions' log level (default INFO). */
    logLevel?: string;
    /**
     * An existing table the stack uses instead of its own: a table restored from a point-in-time
     * backup (README, "Restoring the table"). It must have the indexes of infra/table-definition.ts.
     */
    tableName?: string;
    /** The route table (default: infra/routes.ts); tests pass a larger one. */
    routes?: readonly Route[];
  };

export const isDevStage = (stage: string) => stage === 'dev' || stage.startsWith('dev-');

/** A setting a stage cannot deploy without; the message names it, and `cdk synth` prints that one line. */
export class StackSettingError extends Error {
  override name = 'StackSettingError';
}

/**
 * Alarms must reach someone outside dev stages: the message names the settings that give them a
 * destination. Checked before anything is built, so synth stops at once.
 */
const checkAlarmDestination = (props: Pick<ServiceStackProps, 'stage' | 'alarmEmail' | 'alarmTopicArn'>) => {
  if (isDevStage(props.stage) || props.alarmEmail || props.alarmTopicArn) return;
  throw new StackSettingError(
    `Stage ${props.stage} has no alarm destination: set -c alarmEmail=<address> or -c alarmTopicArn=<SNS topic ARN>`,
  );
};

/**
 * A setting `parse` rejects (a malformed `rateLimits`, `keyGuessLimit` or `healthcheckThresholds`)
 * stops synth with one line naming it and what is wrong, not a function failing at its first request.
 */
const checked = (name: string, setting: string, parse: (setting: string) => unknown): string => {
  try {
    parse(setting);
  } catch (error) {
    throw new StackSettingError(`-c ${name}: ${(error as Error).message}`);
  }
  return setting;
};

/** A review budget that is not a whole number of at least 0 stops synth with one line. */
const checkedReviewLimit = (limit: number): number => {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new StackSettingError(`-c reviewDailyLimit: must be a whole number of at least 0, got ${limit}`);
  }
  return limit;
};

/** The default stage's throttle, the ceiling of all keys together; per-key fairness is the functions' own. */
const STAGE_THROTTLE: ThrottleSettings = { rateLimit: 1000, burstLimit: 2000 };
/** The stage that serves every route again under `/api/v2` (API Gateway puts a stage's name before its routes). */
const ALIAS_STAGE = 'api';

export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    checkAlarmDestination(props);
    super(scope, id, props);
    const dev = isDevStage(props.stage);
    const settings: FunctionSettings = {
      tracing: props.tracing ?? !dev,
      logLevel: props.logLevel ?? 'INFO',
      serviceName: `asset-protection-${props.stage}`,
      ...(props.rateLimits ? { rateLimits: checked('rateLimits', props.rateLimits, parseRateLimits) } : {}),
      ...(props.keyGuessLimit
        ? { keyGuessLimit: checked('keyGuessLimit', props.keyGuessLimit, parseKeyGuessLimit) }
        : {}),
      ...(props.reviewDailyLimit === undefined ? {} : { reviewDailyLimit: checkedReviewLimit(props.reviewDailyLimit) }),
      ...(props.reportUrlBase ? { reportUrlBase: props.reportUrlBase } : {}),
      ...(props.blocklistExternalLists === false ? { blocklistExternalLists: false } : {}),
      ...(props.healthcheckThresholds
        ? { healthcheckThresholds: checked('healthcheckThresholds', props.healthcheckThresholds, parseStageThresholds) }
        : {}),
    };

    const table = props.tableName ? Table.fromTableName(this, 'Table', props.tableName) : this.#table(dev);

    // A key set {"current": "<version>", "<version>": "<key>", …}: rotating adds a version and
    // makes it current; cursors sealed with a version open while that version stays in the set.
    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'Versioned keys that encrypt next_page cursors',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ current: '1' }),
        generateStringKey: '1',
        passwordLength: 48,
        excludePunctuation: true,
      },
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotation adds a key version to the set (README, "Rotating the cursor key") so that outstanding cursors stay valid; a rotation schedule that replaced the value would invalidate them.',
    });

    // {"keys": [...]}: `npm run admin -- blocklist rotate-key` writes the first key and each next one.
    const blocklistSigningSecret = new Secret(this, 'BlocklistSigningSecret', {
      description: "Ed25519 keys that sign the blocklist's manifests",
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ keys: [] })),
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    Validations.of(blocklistSigningSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotation is `npm run admin -- blocklist rotate-key`: it publishes the next key before it signs and keeps the previous one listed for a week; a scheduled replacement of the value would drop keys clients still verify with.',
    });

    const cors = corsSettings(props.corsOrigins);
    const api = new HttpApi(this, 'Api', {
      createDefaultStage: false,
      // API Gateway answers the preflight itself and adds the headers to every response.
      corsPreflight: {
        allowOrigins: [...cors.allowOrigins],
        allowHeaders: [...cors.allowHeaders],
        allowMethods: cors.allowMethods.map((method) => CorsHttpMethod[method as keyof typeof CorsHttpMethod]),
        exposeHeaders: [...cors.exposeHeaders],
        maxAge: Duration.seconds(cors.maxAgeSeconds),
      },
    });
    const accessLogs = apiAccessLogGroup(this, 'ApiAccessLogs', dev);
    const accessLogSettings = apiAccessLog(accessLogs, settings.serviceName);
    const throttle = props.throttle ?? STAGE_THROTTLE;
    // Routes are `/v2/...`: the default stage serves them at `/v2`, the alias stage at `/api/v2`,
    // one stage for every route instead of a second route, integration and permission per route.
    const stages = ['$default', ALIAS_STAGE].map(
      (stageName) =>
        new HttpStage(this, stageName === '$default' ? 'DefaultStage' : 'AliasStage', {
          httpApi: api,
          stageName,
          autoDeploy: true,
          throttle,
          accessLogSettings,
        }),
    );

    const lists = new CheckLists(this, 'CheckLists', {
      settings,
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      ...(props.checkLists ? { lists: props.checkLists } : {}),
    });
    const verdictSnapshots = new VerdictSnapshots(this, 'VerdictSnapshots', { table, bucket: lists.bucket, settings });
    const blocklist = new BlocklistArtifacts(this, 'BlocklistArtifacts', {
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    // The compaction job publishes the blocklist's snapshot artifact from each verdict snapshot.
    verdictSnapshots.function.addEnvironment('BLOCKLIST_BUCKET', blocklist.bucket.bucketName);
    blocklist.grant(verdictSnapshots.function, 'write');
    const ingest = new ActivityIngest(this, 'ActivityIngest', { table, settings });
    const resumer = new InterruptedWrites(this, 'InterruptedWrites', { table, settings });
    const scans = new ScanQueue(this, 'ScanQueue', { table, settings, lists });
    const detectionRuns = new DetectionRuns(this, 'DetectionRuns', { table, settings, lists });

    const topic: ITopic = props.alarmTopicArn
      ? Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn)
      : new Topic(this, 'AlarmTopic', { displayName: `${settings.serviceName} alarms`, enforceSSL: true });
    if (props.alarmEmail) topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const alarmAction = new SnsAction(topic);
    const webhooks = new WebhookDelivery(this, 'Webhooks', { table, settings, alarmAction });

    const routes = props.routes ?? ROUTES;
    const areas = AREAS.filter((area) => routes.some((route) => route.area === area));
    for (const area of areas) {
      new RouteArea(this, `${area.charAt(0).toUpperCase()}${area.slice(1)}Routes`, {
        area,
        routes: routes.filter((route) => route.area === area),
        settings,
        api,
        table,
        cursorSecret,
        blocklistSigningSecret,
        lists,
        verdictSnapshots,
        blocklist,
        scans,
        alarmAction,
        webhooks,
        detectionRuns,
      });
    }

    const observability = new Observability(this, 'Observability', {
      serviceName: settings.serviceName,
      alarmAction,
      areas,
      api: { id: api.apiId, stages: stages.map((stage) => stage.stageName), accessLogs },
      workers: {
        'activity-ingest': ingest.function,
        'list-sync': lists.syncFunction,
        'verdict-snapshot': verdictSnapshots.function,
        'verdict-publisher': verdictSnapshots.publisher,
        'interrupted-writes': resumer.function,
        'webhook-delivery': webhooks.deliverFunction,
        'webhook-events': webhooks.generateFunction,
        'scan-worker': scans.function,
        'detection-runs': detectionRuns.runFunction,
        'detection-schedule': detectionRuns.scheduleFunction,
        'detection-samples': detectionRuns.sampleFunction,
      },
      queue: ingest.queue,
      deadLetterQueue: ingest.deadLetterQueue,
      listSync: { fn: lists.syncFunction, sources: lists.sources },
      table,
    });

    new CfnOutput(this, 'ApiUrl', { value: `${api.apiEndpoint}${BASE_PATH}` });
    new CfnOutput(this, 'ApiAliasUrl', { value: `${api.apiEndpoint}/${ALIAS_STAGE}${BASE_PATH}` });
    new CfnOutput(this, 'ActivityQueueUrl', { value: ingest.queue.queueUrl });
    new CfnOutput(this, 'ActivityDeadLetterQueueUrl', { value: ingest.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', { value: webhooks.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'ScanDeadLetterQueueUrl', { value: scans.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'DetectionRunDeadLetterQueueUrl', { value: detectionRuns.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BlocklistCdnUrl', { value: blocklist.cdnUrl });
    new CfnOutput(this, 'AlarmTopicArn', { value: topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: observability.dashboard.dashboardName });
  }

  #table(dev: boolean): ITable {
    const table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_DEFINITION.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_DEFINITION.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: !dev,
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      timeToLiveAttribute: TABLE_DEFINITION.timeToLiveAttribute,
    });
    for (const index of TABLE_DEFINITION.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }
}
