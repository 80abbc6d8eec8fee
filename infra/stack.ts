import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { CorsHttpMethod, HttpApi, HttpMethod, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ActivityIngest } from './activity-ingest.ts';
import { ApiFunction, type FunctionSettings } from './api-function.ts';
import { CheckLists, type CheckListsProps } from './check-lists.ts';
import { corsSettings } from './cors.ts';
import { InterruptedWrites } from './interrupted-writes.ts';
import { apiAccessLog, Observability } from './observability.ts';
import { BASE_PATH, BASE_PATHS, ROUTES } from './routes.ts';
import { TABLE_DEFINITION } from './table-definition.ts';
import { VerdictSnapshots } from './verdict-snapshots.ts';

export type ServiceStackProps = StackProps & {
  /** `dev` stages may be torn down with their data; any other stage keeps the table. */
  stage: string;
  throttle?: { rateLimit: number; burstLimit: number };
  /** External list URLs for the asset check, by source (default: polkadot-phishing's public list). */
  checkLists?: CheckListsProps['lists'];
  /** Origins a browser page may call the API from (default `*`). */
  corsOrigins?: readonly string[];
  /** Subscribed to the alarm topic. */
  alarmEmail?: string;
  /** Active X-Ray tracing of every function (default: on outside dev stages). */
  tracing?: boolean;
  /** Functions' log level (default INFO). */
  logLevel?: string;
};

/** An endpoint whose p99 latency stays above this for 15 minutes alarms. */
const P99_LATENCY_MS = 1000;

export const isDevStage = (stage: string) => stage === 'dev' || stage.startsWith('dev-');

export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const dev = isDevStage(props.stage);
    const settings: FunctionSettings = {
      tracing: props.tracing ?? !dev,
      logLevel: props.logLevel ?? 'INFO',
      serviceName: `asset-protection-${props.stage}`,
    };

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
    new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 1000, burstLimit: 2000 },
      accessLogSettings: apiAccessLog(this, 'ApiAccessLogs', dev),
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every route authenticates inside its function (x-api-key looked up by hash, organization and scope checked per route, 401/403 bodies of the spec); the public metrics route is public by specification. HTTP APIs have no API-key authorizer.',
    });

    const lists = new CheckLists(this, 'CheckLists', {
      settings,
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      ...(props.checkLists ? { lists: props.checkLists } : {}),
    });

    const verdictSnapshots = new VerdictSnapshots(this, 'VerdictSnapshots', { table, bucket: lists.bucket, settings });

    const endpoints = ROUTES.map((route) => {
      const { fn } = new ApiFunction(this, route.name, {
        entry: route.entry,
        settings,
        table,
        access: route.access,
        indexes: route.indexes,
        memorySize: route.memorySize,
        files: route.files,
        environment: {
          // The key set is read at run time (cached), so no key is in the function's configuration.
          ...(route.readsCursorKey ? { CURSOR_SECRET_ARN: cursorSecret.secretArn } : {}),
          ...(route.readsCheckLists ? { LISTS_BUCKET: lists.bucket.bucketName } : {}),
          ...(route.readsVerdicts ? { VERDICTS_BUCKET: lists.bucket.bucketName } : {}),
        },
      });
      if (route.readsVerdicts) {
        verdictSnapshots.grantReadSnapshots(fn);
        verdictSnapshots.runsBefore(fn);
      }
      if (route.readsCursorKey) cursorSecret.grantRead(fn);
      if (route.readsCheckLists) lists.grantReadLists(fn);
      const integration = new HttpLambdaIntegration(`${route.name}-integration`, fn);
      for (const base of BASE_PATHS) {
        api.addRoutes({ path: `${base}${route.path}`, methods: [HttpMethod[route.method]], integration });
      }
      return { name: route.name, fn, p99LatencyMs: P99_LATENCY_MS };
    });

    const ingest = new ActivityIngest(this, 'ActivityIngest', { table, settings });
    const resumer = new InterruptedWrites(this, 'InterruptedWrites', { table, settings });

    const observability = new Observability(this, 'Observability', {
      serviceName: settings.serviceName,
      alarmEmail: props.alarmEmail,
      endpoints,
      functions: {
        ...Object.fromEntries(endpoints.map((endpoint) => [endpoint.name, endpoint.fn])),
        'activity-ingest': ingest.function,
        'list-sync': lists.syncFunction,
        'verdict-snapshot': verdictSnapshots.function,
        'interrupted-writes': resumer.function,
      },
      deadLetterQueue: ingest.deadLetterQueue,
      listSync: { fn: lists.syncFunction, sources: lists.sources },
      table,
    });

    new CfnOutput(this, 'ApiUrl', { value: `${api.apiEndpoint}${BASE_PATH}` });
    new CfnOutput(this, 'ActivityQueueUrl', { value: ingest.queue.queueUrl });
    new CfnOutput(this, 'ActivityDeadLetterQueueUrl', { value: ingest.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { value: observability.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: observability.dashboard.dashboardName });
  }
}
