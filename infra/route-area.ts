import { Duration, NestedStack, type NestedStackProps, Validations } from 'aws-cdk-lib';
import { type HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import {
  ComparisonOperator,
  type IAlarmAction,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from '../shared/metric-names.ts';
import { ApiFunction, type FunctionSettings } from './api-function.ts';
import type { BlocklistArtifacts } from './blocklist-artifacts.ts';
import type { CheckLists } from './check-lists.ts';
import type { DetectionRuns } from './detection-runs.ts';
import { type Area, BASE_PATH, type Route } from './routes.ts';
import type { ScanQueue } from './scan-queue.ts';
import type { VerdictSnapshots } from './verdict-snapshots.ts';
import type { WebhookDelivery } from './webhooks.ts';

/**
 * One area holds at most this many routes: at 7 resources a route (function, role, policy, log
 * group, integration, route, permission) and the area's alarms, its stack stays under 400 of
 * CloudFormation's 500 resources. An area that outgrows it is split in the route table.
 */
export const MAX_ROUTES_PER_AREA = 50;

/** An area's p99 latency above this for 15 minutes alarms. */
const P99_LATENCY_MS = 1000;
/** A 5xx rate (percent of responses) above this in 2 of 3 five-minute periods alarms. */
const SERVER_ERROR_RATE_PERCENT = 5;
/** More than this percent of an area's responses rate-limited (429) for 15 minutes alarms. */
const RATE_LIMITED_PERCENT = 5;
/** A verdict replica that has not caught up with the log for this long is stale (freshness goal: 1 s). */
const STALE_REPLICA_SECONDS = 60;
const FIVE_MINUTES = Duration.minutes(5);

/** What the routes of an area reach outside their own stack. */
export type RouteAreaProps = NestedStackProps & {
  area: Area;
  routes: readonly Route[];
  settings: FunctionSettings;
  api: HttpApi;
  table: ITable;
  cursorSecret: ISecret;
  /** The blocklist's manifest signing keys: read by the route that signs, and by no other. */
  blocklistSigningSecret: ISecret;
  /** The check's external lists; their bucket holds the verdict snapshots too. */
  lists: Pick<CheckLists, 'bucket' | 'grantReadLists'>;
  verdictSnapshots: Pick<VerdictSnapshots, 'grantReadSnapshots' | 'runsBefore'>;
  /** The hash-prefix blocklist's artifacts bucket and CDN. */
  blocklist: Pick<BlocklistArtifacts, 'bucket' | 'cdnUrl' | 'grant'>;
  /** The queue the routes that start scans send to. */
  scans: Pick<ScanQueue, 'queue' | 'grantStartScans'>;
  alarmAction: IAlarmAction;
  webhooks: Pick<WebhookDelivery, 'queue' | 'secretsKey' | 'grantSeal'>;
  /** The queue the routes that queue detection runs send to. */
  detectionRuns: Pick<DetectionRuns, 'queue' | 'grantQueueRuns' | 'subscribeCheckSamples'>;
};

const routeMetric = (metricName: string, dimensions: Record<string, string>, statistic: string) =>
  new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: dimensions, statistic, period: FIVE_MINUTES });

/**
 * The routes of one area of the API in a stack of their own: per route a function and its role,
 * log group and API route (under `/v2`; the `/api/v2` alias is a stage of the API, at no cost per
 * route), and alarms over the area's routes together, read from the figures the functions publish
 * per area, so an area costs a constant number of alarms whatever its size.
 */
export class RouteArea extends NestedStack {
  constructor(scope: Construct, id: string, props: RouteAreaProps) {
    super(scope, id, props);
    if (props.routes.length > MAX_ROUTES_PER_AREA) {
      throw new Error(
        `Area ${props.area} has ${props.routes.length} routes; an area holds at most ${MAX_ROUTES_PER_AREA} (split it in infra/routes.ts)`,
      );
    }
    const { settings, table } = props;
    for (const route of props.routes) {
      const { fn } = new ApiFunction(this, route.name, {
        entry: route.entry,
        settings,
        table,
        area: route.area,
        access: route.access,
        indexes: route.indexes,
        writes: route.writes,
        memorySize: route.memorySize,
        ...(route.timeoutSeconds === undefined ? {} : { timeout: Duration.seconds(route.timeoutSeconds) }),
        files: route.files,
        untraced: route.untraced,
        environment: {
          // The key set is read at run time (cached), so no key is in the function's configuration.
          ...(route.readsCursorKey ? { CURSOR_SECRET_ARN: props.cursorSecret.secretArn } : {}),
          ...(route.readsCheckLists ? { LISTS_BUCKET: props.lists.bucket.bucketName } : {}),
          ...(route.readsVerdicts ? { VERDICTS_BUCKET: props.lists.bucket.bucketName } : {}),
          ...(route.sealsWebhookSecrets ? { WEBHOOK_SECRETS_KEY_ID: props.webhooks.secretsKey.keyArn } : {}),
          ...(route.queuesWebhookDeliveries ? { WEBHOOK_QUEUE_URL: props.webhooks.queue.queueUrl } : {}),
          ...(route.startsScans ? { SCAN_QUEUE_URL: props.scans.queue.queueUrl } : {}),
          ...(route.queuesDetectionRuns ? { DETECTION_QUEUE_URL: props.detectionRuns.queue.queueUrl } : {}),
          ...(route.blocklistArtifacts ? { BLOCKLIST_BUCKET: props.blocklist.bucket.bucketName } : {}),
          ...(route.blocklistArtifacts === 'write' ? { BLOCKLIST_CDN_URL: props.blocklist.cdnUrl } : {}),
          ...(route.signsBlocklist ? { BLOCKLIST_SIGNING_SECRET_ARN: props.blocklistSigningSecret.secretArn } : {}),
        },
      });
      if (route.sealsWebhookSecrets) props.webhooks.grantSeal(fn);
      if (route.queuesWebhookDeliveries) props.webhooks.queue.grantSendMessages(fn);
      if (route.startsScans) props.scans.grantStartScans(fn);
      if (route.queuesDetectionRuns) props.detectionRuns.grantQueueRuns(fn);
      if (route.samplesCheckContent) props.detectionRuns.subscribeCheckSamples(this, fn);
      if (route.blocklistArtifacts) props.blocklist.grant(fn, route.blocklistArtifacts);
      if (route.readsVerdicts) {
        props.verdictSnapshots.grantReadSnapshots(fn);
        props.verdictSnapshots.runsBefore(fn);
      }
      if (route.readsCursorKey) props.cursorSecret.grantRead(fn);
      if (route.signsBlocklist) props.blocklistSigningSecret.grantRead(fn);
      if (route.readsCheckLists) props.lists.grantReadLists(fn);
      new HttpRoute(this, `${route.name}Route`, {
        httpApi: props.api,
        // A root route is spelled as TAXII spells it (`/taxii2/`); API Gateway takes no final slash
        // in a route and matches a request with or without one.
        routeKey: HttpRouteKey.with(
          route.root ? route.path.replace(/\/$/, '') : `${BASE_PATH}${route.path}`,
          HttpMethod[route.method],
        ),
        integration: new HttpLambdaIntegration(`${route.name}-integration`, fn),
      });
    }
    const publicRoutes = props.routes.filter((route) => route.public);
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        publicRoutes.length > 0
          ? `Public by design, no key: ${publicRoutes.map((route) => `${route.method} ${route.path}`).join(', ')} (the API description, the pages, the blocklist artifacts, which hold only hash prefixes, and the public keys that verify them). Every other route authenticates inside its function: X-API-KEY looked up by hash, organization and scope checked per route; HTTP APIs have no API-key authorizer.`
          : 'Every route authenticates inside its function: X-API-KEY looked up by hash, organization and scope checked per route, with the 401/403 bodies of the spec; HTTP APIs have no API-key authorizer.',
    });
    this.#alarms(props);
  }

  #alarms(props: RouteAreaProps) {
    const area = { [DIMENSION.service]: props.settings.serviceName, [DIMENSION.area]: props.area };
    const alarm = (created: { addAlarmAction(a: IAlarmAction): void; addOkAction(a: IAlarmAction): void }) => {
      created.addAlarmAction(props.alarmAction);
      created.addOkAction(props.alarmAction);
    };
    const share = (label: string, part: string) =>
      new MathExpression({
        expression: '100 * FILL(part, 0) / requests',
        usingMetrics: {
          part: routeMetric(part, area, 'Sum'),
          requests: routeMetric(METRIC.requests, area, 'Sum'),
        },
        period: FIVE_MINUTES,
        label,
      });
    alarm(
      share(`${props.area} 5xx %`, METRIC.serverErrors).createAlarm(this, 'ServerErrorRate', {
        alarmDescription: `${props.area} routes: more than ${SERVER_ERROR_RATE_PERCENT}% of responses are 5xx`,
        threshold: SERVER_ERROR_RATE_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    alarm(
      routeMetric(METRIC.latency, area, 'p99').createAlarm(this, 'LatencyP99', {
        alarmDescription: `${props.area} routes: p99 latency above ${P99_LATENCY_MS} ms`,
        threshold: P99_LATENCY_MS,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    alarm(
      share(`${props.area} 429 %`, METRIC.rateLimited).createAlarm(this, 'RateLimitedRate', {
        alarmDescription: `${props.area} routes: more than ${RATE_LIMITED_PERCENT}% of responses are 429 (rate limited)`,
        threshold: RATE_LIMITED_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    for (const route of props.routes.filter((candidate) => candidate.readsVerdicts)) {
      const replica = { [DIMENSION.service]: props.settings.serviceName, [DIMENSION.route]: route.name };
      alarm(
        routeMetric(METRIC.replicaAge, replica, 'Maximum').createAlarm(this, `${route.name}ReplicaStale`, {
          alarmDescription: `${route.name}: a verdict replica has not caught up with the verdict log for over ${STALE_REPLICA_SECONDS} s`,
          threshold: STALE_REPLICA_SECONDS,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 2,
          datapointsToAlarm: 2,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }
  }
}
