import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type IAccessLogSettings, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  type Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IAlarmAction,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, LogGroup, MetricFilter, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from '../shared/metric-names.ts';

/** The log group of the HTTP API stages' access lines, kept a week in dev stages and three months elsewhere. */
export const apiAccessLogGroup = (scope: Construct, id: string, dev: boolean): LogGroup =>
  new LogGroup(scope, id, {
    retention: dev ? RetentionDays.ONE_WEEK : RetentionDays.THREE_MONTHS,
    removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });

/**
 * The HTTP API stages' access log: one JSON line per request, including the ones API Gateway
 * answers itself (throttled, no route, integration failure) that no function ever sees.
 */
export const apiAccessLog = (logGroup: LogGroup, serviceName: string): IAccessLogSettings => ({
  destination: new LogGroupLogDestination(logGroup),
  format: AccessLogFormat.custom(
    JSON.stringify({
      // A constant: the dimension of the figures counted from these lines (the stage's throttled requests).
      service: serviceName,
      requestId: '$context.requestId',
      time: '$context.requestTime',
      stage: '$context.stage',
      route: '$context.routeKey',
      method: '$context.httpMethod',
      path: '$context.path',
      status: '$context.status',
      latencyMs: '$context.responseLatency',
      integrationLatencyMs: '$context.integrationLatency',
      integrationStatus: '$context.integrationStatus',
      integrationError: '$context.integrationErrorMessage',
      error: '$context.error.message',
      ip: '$context.identity.sourceIp',
      responseLength: '$context.responseLength',
    }),
  ),
});

export type ObservabilityProps = {
  /** The `service` dimension every metric of this stage carries. */
  serviceName: string;
  /** Where every alarm goes (the stack checks that a non-dev stage has a destination). */
  alarmAction: IAlarmAction;
  /** The route areas deployed; each has its own endpoint alarms (infra/route-area.ts), the dashboard shows them. */
  areas: readonly string[];
  /** The HTTP API, its stages and the log group of their access lines. */
  api: { id: string; stages: readonly string[]; accessLogs: ILogGroup };
  /** The functions that are not routes, by name: each has its own error alarm. */
  workers: Readonly<Record<string, IFunction>>;
  queue: IQueue;
  deadLetterQueue: IQueue;
  listSync: { fn: IFunction; sources: readonly string[] };
  table: ITable;
};

const FIVE_MINUTES = Duration.minutes(5);
/** A 5xx rate (percent of responses) above this in 2 of 3 five-minute periods alarms. */
const SERVER_ERROR_RATE_PERCENT = 5;
/** A list not synced for this long is stale; the sync runs every 5 minutes. */
const STALE_LIST_AFTER = Duration.hours(1);
/** No verdict snapshot stored for this long: new check containers start from an old one; the job runs every 5 minutes. */
const STALE_SNAPSHOT_AFTER = Duration.hours(1);
/** An activity change waiting this long in the queue is late (ingest normally takes seconds). */
const QUEUE_AGE_SECONDS = 600;
/** Transactions cancelled by another one touching the same items, per 5 minutes, for 15 minutes. */
const TRANSACTION_CONFLICTS = 100;
/** The status API Gateway answers when the stage throttle (all keys together) is exceeded. */
const GATEWAY_THROTTLED = 'GatewayThrottled';

/**
 * The stage-wide alarms, all notifying one destination, and one dashboard. Endpoint alarms are per
 * area (infra/route-area.ts). Here: the API's own 5xx (which includes a function that crashed or
 * timed out, a case the functions' figures never see), requests API Gateway throttled, the account's
 * Lambda throttles, the workers' errors, the activity queue and its dead letters, list and
 * snapshot staleness, transaction conflicts and DynamoDB throttling. A constant number, whatever
 * the number of routes.
 */
export class Observability extends Construct {
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const alarm = (created: Alarm) => {
      created.addAlarmAction(props.alarmAction);
      created.addOkAction(props.alarmAction);
      this.alarms.push(created);
      return created;
    };
    const service = { [DIMENSION.service]: props.serviceName };
    const metric = (metricName: string, dimensions: Record<string, string>, statistic: string, period = FIVE_MINUTES) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { ...service, ...dimensions },
        statistic,
        period,
      });
    const gateway = (metricName: string, stage: string) =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: props.api.id, Stage: stage },
        statistic: 'Sum',
        period: FIVE_MINUTES,
      });
    const stageIds = props.api.stages.map((_, index) => `s${index}`);
    const apiServerErrors = new MathExpression({
      expression: `100 * (${stageIds.map((id) => `FILL(e${id}, 0)`).join(' + ')}) / (${stageIds.map((id) => `FILL(c${id}, 0)`).join(' + ')})`,
      usingMetrics: Object.fromEntries(
        props.api.stages.flatMap((stage, index) => [
          [`es${index}`, gateway('5xx', stage)],
          [`cs${index}`, gateway('Count', stage)],
        ]),
      ),
      period: FIVE_MINUTES,
      label: 'API 5xx %',
    });
    alarm(
      apiServerErrors.createAlarm(this, 'ApiServerErrorRate', {
        alarmDescription: `More than ${SERVER_ERROR_RATE_PERCENT}% of the API's responses are 5xx (functions that failed, crashed or timed out)`,
        threshold: SERVER_ERROR_RATE_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    // API Gateway's throttling answers 429 before any function runs (no integration status): counted from the
    // access lines, apart from the 429s of the keys' own rate limits, which a function answered.
    const throttled = new MetricFilter(this, 'GatewayThrottledFilter', {
      logGroup: props.api.accessLogs,
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.status', '=', '429'),
        FilterPattern.stringValue('$.integrationStatus', '=', '-'),
      ),
      metricNamespace: METRICS_NAMESPACE,
      metricName: GATEWAY_THROTTLED,
      dimensions: { [DIMENSION.service]: '$.service' },
      metricValue: '1',
    });
    alarm(
      metric(throttled.metric().metricName, {}, 'Sum').createAlarm(this, 'GatewayThrottled', {
        alarmDescription: 'API Gateway answered 429: the stage throttle (every key together) was exceeded',
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    alarm(
      new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Throttles',
        statistic: 'Sum',
        period: FIVE_MINUTES,
      }).createAlarm(this, 'LambdaThrottles', {
        alarmDescription: "Lambda throttled invocations in this account and region (the account's concurrency limit)",
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    for (const [name, fn] of Object.entries(props.workers)) {
      alarm(
        fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }).createAlarm(this, `${name}LambdaErrors`, {
          alarmDescription:
            fn === props.listSync.fn
              ? 'List sync failed: at least one list could not be fetched or stored'
              : `${name}: the function failed (crash, timeout or out of memory)`,
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    alarm(
      props.deadLetterQueue
        .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' })
        .createAlarm(this, 'DeadLetterQueueNotEmpty', {
          alarmDescription: 'Activity changes are in the dead-letter queue (never applied)',
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
    );
    alarm(
      props.queue
        .metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' })
        .createAlarm(this, 'ActivityQueueAge', {
          alarmDescription: `An activity change has waited more than ${QUEUE_AGE_SECONDS} s in the queue`,
          threshold: QUEUE_AGE_SECONDS,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 2,
          datapointsToAlarm: 2,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
    );

    for (const source of props.listSync.sources) {
      alarm(
        metric(METRIC.listEntries, { [DIMENSION.source]: source }, 'SampleCount', STALE_LIST_AFTER).createAlarm(
          this,
          `${source}ListStale`,
          {
            alarmDescription: `The ${source} list has not been synced for ${STALE_LIST_AFTER.toHours()} hour`,
            threshold: 1,
            comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
            evaluationPeriods: 1,
            // No sync reported the list at all: that is the stale case.
            treatMissingData: TreatMissingData.BREACHING,
          },
        ),
      );
    }
    alarm(
      metric(METRIC.snapshotsStored, {}, 'SampleCount', STALE_SNAPSHOT_AFTER).createAlarm(
        this,
        'VerdictSnapshotStale',
        {
          alarmDescription: `No verdict snapshot stored for ${STALE_SNAPSHOT_AFTER.toHours()} hour: new check containers start from an older one`,
          threshold: 1,
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.BREACHING,
        },
      ),
    );
    alarm(
      metric(METRIC.transactionConflicts, {}, 'Sum').createAlarm(this, 'TransactionConflicts', {
        alarmDescription: `More than ${TRANSACTION_CONFLICTS} transactions per 5 minutes were cancelled by a concurrent one, for 15 minutes`,
        threshold: TRANSACTION_CONFLICTS,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    const tableThrottles = new MathExpression({
      expression: 'FILL(reads, 0) + FILL(writes, 0)',
      usingMetrics: {
        reads: props.table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        writes: props.table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
      },
      period: FIVE_MINUTES,
      label: 'DynamoDB throttle events',
    });
    alarm(
      tableThrottles.createAlarm(this, 'TableThrottles', {
        alarmDescription: 'DynamoDB throttled reads or writes on the table',
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    const search = (label: string, metricName: string, dimension: string, statistic = 'Sum') =>
      new MathExpression({
        expression: `SEARCH('{${METRICS_NAMESPACE},${DIMENSION.service},${dimension}} MetricName="${metricName}" ${DIMENSION.service}="${props.serviceName}"', '${statistic}', 300)`,
        label,
        period: FIVE_MINUTES,
      });
    const graph = (title: string, left: IMetric[], width = 12) => new GraphWidget({ title, left, width, height: 6 });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# ${props.serviceName}\nEndpoint figures are the functions' own (EMF, namespace \`${METRICS_NAMESPACE}\`), per route and per area (${props.areas.join(', ')}); alarms notify the alarm topic.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('Requests per endpoint', [search('Requests', METRIC.requests, DIMENSION.route)], 8),
      graph('4xx per endpoint', [search('4xx', METRIC.clientErrors, DIMENSION.route)], 8),
      graph('5xx per endpoint', [search('5xx', METRIC.serverErrors, DIMENSION.route)], 8),
    );
    this.dashboard.addWidgets(
      graph('Latency p50 per endpoint (ms)', [search('p50', METRIC.latency, DIMENSION.route, 'p50')], 8),
      graph('Latency p99 per endpoint (ms)', [search('p99', METRIC.latency, DIMENSION.route, 'p99')], 8),
      graph('429 per area', [search('429', METRIC.rateLimited, DIMENSION.area)], 8),
    );
    this.dashboard.addWidgets(
      graph('Check verdicts by status', [search('Verdicts', METRIC.verdicts, DIMENSION.status)], 8),
      graph('Check verdicts by deciding source', [search('Verdicts', METRIC.verdicts, DIMENSION.source)], 8),
      graph(
        'Check source timeouts and errors',
        [
          search('Timeouts', METRIC.sourceTimeouts, DIMENSION.source),
          search('Errors', METRIC.sourceErrors, DIMENSION.source),
        ],
        8,
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Activity changes',
        [METRIC.changesApplied, METRIC.changesIgnored, METRIC.changesFailed, METRIC.changesRejected].map((name) =>
          metric(name, {}, 'Sum').with({ label: name }),
        ),
        8,
      ),
      graph(
        'List entries',
        props.listSync.sources.map((source) =>
          metric(METRIC.listEntries, { [DIMENSION.source]: source }, 'Maximum').with({ label: source }),
        ),
        8,
      ),
      graph('Verdict replica age (s)', [search('Replica age', METRIC.replicaAge, DIMENSION.route, 'Maximum')], 8),
    );
    this.dashboard.addWidgets(
      graph('DynamoDB throttle events', [tableThrottles], 8),
      graph('Transaction conflicts', [metric(METRIC.transactionConflicts, {}, 'Sum')], 8),
      new AlarmStatusWidget({ title: 'Stage alarms', alarms: this.alarms, width: 8, height: 6 }),
    );
  }
}
