import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type IAccessLogSettings, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  type Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from '../shared/metric-names.ts';

/**
 * The HTTP API stage's access log: one JSON line per request, including the ones API Gateway
 * answers itself (throttled, no route, integration failure) that no function ever sees.
 */
export const apiAccessLog = (scope: Construct, id: string, dev: boolean): IAccessLogSettings => ({
  destination: new LogGroupLogDestination(
    new LogGroup(scope, id, {
      retention: dev ? RetentionDays.ONE_WEEK : RetentionDays.THREE_MONTHS,
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    }),
  ),
  format: AccessLogFormat.custom(
    JSON.stringify({
      requestId: '$context.requestId',
      time: '$context.requestTime',
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

/**
 * An endpoint to watch: its route name (also the `route` dimension of its metrics), its function,
 * and the p99 latency above which its alarm fires (the minute-by-minute p99 of the handler's latency).
 */
export type ObservedEndpoint = { name: string; fn: IFunction; p99LatencyMs: number };

export type ObservabilityProps = {
  /** The `service` dimension every metric of this stage carries. */
  serviceName: string;
  /** Subscribed to the alarm topic when given. */
  alarmEmail?: string;
  endpoints: readonly ObservedEndpoint[];
  /** Every function of the stage by name, for Lambda errors and throttles. */
  functions: Readonly<Record<string, IFunction>>;
  deadLetterQueue: IQueue;
  listSync: { fn: IFunction; sources: readonly string[] };
  table: ITable;
};

const FIVE_MINUTES = Duration.minutes(5);
/** A 5xx rate (percent of responses) above this in 2 of 3 five-minute periods alarms. */
const SERVER_ERROR_RATE_PERCENT = 5;
/** A list not synced for this long is stale; the sync runs every 5 minutes. */
const STALE_LIST_AFTER = Duration.hours(1);

/**
 * Alarms on what an operator must act on, all notifying one SNS topic, and one dashboard with
 * the endpoint and asset check figures. Endpoint figures come from the functions' embedded
 * metrics (a handled exception becomes a 500 response, which Lambda's own Errors metric never
 * counts); Lambda, SQS and DynamoDB figures from their services.
 */
export class Observability extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = new Topic(this, 'AlarmTopic', { displayName: `${props.serviceName} alarms`, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const alarm = (created: Alarm) => {
      created.addAlarmAction(action);
      created.addOkAction(action);
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

    for (const endpoint of props.endpoints) {
      const route = { [DIMENSION.route]: endpoint.name };
      alarm(
        new MathExpression({
          expression: '100 * FILL(errors, 0) / requests',
          usingMetrics: {
            errors: metric(METRIC.serverErrors, route, 'Sum'),
            requests: metric(METRIC.requests, route, 'Sum'),
          },
          period: FIVE_MINUTES,
          label: `${endpoint.name} 5xx %`,
        }).createAlarm(this, `${endpoint.name}ServerErrorRate`, {
          alarmDescription: `${endpoint.name}: more than ${SERVER_ERROR_RATE_PERCENT}% of responses are 5xx`,
          threshold: SERVER_ERROR_RATE_PERCENT,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
      alarm(
        metric(METRIC.latency, route, 'p99').createAlarm(this, `${endpoint.name}LatencyP99`, {
          alarmDescription: `${endpoint.name}: p99 latency above ${endpoint.p99LatencyMs} ms`,
          threshold: endpoint.p99LatencyMs,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: 3,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    for (const [name, fn] of Object.entries(props.functions)) {
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
      alarm(
        fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }).createAlarm(this, `${name}LambdaThrottles`, {
          alarmDescription: `${name}: invocations were throttled (concurrency limit reached)`,
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
    const perEndpoint = (metricName: string, statistic: string): IMetric[] =>
      props.endpoints.map((endpoint) =>
        metric(metricName, { [DIMENSION.route]: endpoint.name }, statistic).with({ label: endpoint.name }),
      );
    const search = (label: string, metricName: string, dimension: string) =>
      new MathExpression({
        expression: `SEARCH('{${METRICS_NAMESPACE},${DIMENSION.service},${dimension}} MetricName="${metricName}" ${DIMENSION.service}="${props.serviceName}"', 'Sum', 300)`,
        label,
        period: FIVE_MINUTES,
      });
    const graph = (title: string, left: IMetric[], width = 12) => new GraphWidget({ title, left, width, height: 6 });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# ${props.serviceName}\nEndpoint figures are the functions' own (EMF, namespace \`${METRICS_NAMESPACE}\`); alarms notify the SNS topic.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('Requests per endpoint', perEndpoint(METRIC.requests, 'Sum'), 8),
      graph('4xx per endpoint', perEndpoint(METRIC.clientErrors, 'Sum'), 8),
      graph('5xx per endpoint', perEndpoint(METRIC.serverErrors, 'Sum'), 8),
    );
    this.dashboard.addWidgets(
      graph('Latency p50 per endpoint (ms)', perEndpoint(METRIC.latency, 'p50')),
      graph('Latency p99 per endpoint (ms)', perEndpoint(METRIC.latency, 'p99')),
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
      graph(
        'List age (s)',
        props.listSync.sources.map((source) =>
          metric(METRIC.listAge, { [DIMENSION.source]: source }, 'Maximum').with({ label: source }),
        ),
        8,
      ),
    );
    this.dashboard.addWidgets(
      graph('DynamoDB throttle events', [tableThrottles], 12),
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 12, height: 6 }),
    );
  }
}
