import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { ComparisonOperator, type IAlarmAction, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ACTIVITY_INDEX } from '../shared/db/keys.ts';
import { METRICS_NAMESPACE } from '../shared/metric-names.ts';
import { type FunctionSettings, grantTable, grantTableWrites, serviceFunction } from './api-function.ts';
import { WORKER_WRITES, WORKERS } from './routes.ts';
import { logicalId } from './scheduled-job.ts';
import { workerQueues } from './worker-queue.ts';

export type WebhookDeliveryProps = { table: ITable; settings: FunctionSettings; alarmAction: IAlarmAction };

/** A receiver has 5 s per attempt; a batch's attempts run side by side, so a run takes about that long. */
const DELIVER_TIMEOUT_SECONDS = 30;
/** The generator polls the verdict log for most of a minute, then the next scheduled run takes over. */
const GENERATE_TIMEOUT_SECONDS = 70;
/** More than this percent of finished deliveries FAILURE (with at least `MIN_DELIVERIES`) in 15 minutes alarms. */
const FAILURE_RATE_PERCENT = 20;
const MIN_DELIVERIES = 20;
const FIFTEEN_MINUTES = Duration.minutes(15);
const DELIVERY_FAILED = 'WebhookDeliveriesFailed';
const DELIVERY_FINISHED = 'WebhookDeliveriesFinished';

/**
 * Webhook events and their delivery: a scheduled generator reads the verdict log and the feed of
 * new detections and records the events, one delivery record per webhook and poll; an SQS queue
 * carries the records to the delivery function (one attempt per message, its events sent in order,
 * a retry as a new delayed message), with a dead-letter queue for messages whose
 * outcome could not be recorded. Signing secrets are sealed with a KMS key of their own that only
 * the functions which create webhooks (encrypt) and deliver them (decrypt) may use.
 */
export class WebhookDelivery extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly secretsKey: Key;
  readonly deliverFunction: NodejsFunction;
  readonly generateFunction: NodejsFunction;

  constructor(scope: Construct, id: string, { table, settings, alarmAction }: WebhookDeliveryProps) {
    super(scope, id);
    this.secretsKey = new Key(this, 'SecretsKey', {
      enableKeyRotation: true,
      description: `${settings.serviceName} webhook signing secrets`,
    });
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workerQueues(this, DELIVER_TIMEOUT_SECONDS));
    const environment = {
      TABLE_NAME: table.tableName,
      WEBHOOK_QUEUE_URL: this.queue.queueUrl,
      WEBHOOK_SECRETS_KEY_ID: this.secretsKey.keyArn,
    };

    this.deliverFunction = serviceFunction(this, 'DeliverFunction', {
      entry: WORKERS['deliver-webhooks'],
      memorySize: 256,
      timeout: Duration.seconds(DELIVER_TIMEOUT_SECONDS),
      settings,
      environment,
    });
    this.deliverFunction.addEventSource(
      new SqsEventSource(this.queue, { reportBatchItemFailures: true, batchSize: 10, maxConcurrency: 20 }),
    );
    // Claims and records deliveries (UpdateItem, TransactWriteItems), reads the webhook (GetItem).
    grantTable(table, this.deliverFunction, ['dynamodb:GetItem']);
    grantTableWrites(table, this.deliverFunction, WORKER_WRITES['deliver-webhooks'], [
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
    ]);
    this.secretsKey.grantDecrypt(this.deliverFunction);
    this.queue.grantSendMessages(this.deliverFunction);

    this.generateFunction = serviceFunction(this, 'GenerateFunction', {
      entry: WORKERS['generate-webhook-events'],
      memorySize: 512,
      timeout: Duration.seconds(GENERATE_TIMEOUT_SECONDS),
      settings,
      environment,
    });
    // Reads the verdict log, the webhooks and the records of each changed asset; records deliveries and its position.
    grantTable(table, this.generateFunction, ['dynamodb:GetItem', 'dynamodb:Query'], [ACTIVITY_INDEX.byAsset.name]);
    grantTableWrites(table, this.generateFunction, WORKER_WRITES['generate-webhook-events'], ['dynamodb:PutItem']);
    this.queue.grantSendMessages(this.generateFunction);
    new Schedule(this, 'Schedule', {
      description: 'Turns verdict changes into webhook deliveries, polling the verdict log for a minute',
      schedule: ScheduleExpression.rate(Duration.minutes(1)),
      target: new LambdaInvoke(this.generateFunction, { retryAttempts: 0 }),
    });
    Validations.of(Stack.of(this)).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId(this.generateFunction)}.Arn>:*]`,
      reason:
        "The schedule's role may invoke the webhook generator's versions and aliases (qualified ARNs), and no other function.",
    });

    this.#alarms(alarmAction);
  }

  /** Lets a route seal new signing secrets (encrypt only: no route reads a secret back). */
  grantSeal(grantee: IGrantable) {
    this.secretsKey.grant(grantee, 'kms:Encrypt');
  }

  #alarms(alarmAction: IAlarmAction) {
    const notify = (created: { addAlarmAction(a: IAlarmAction): void; addOkAction(a: IAlarmAction): void }) => {
      created.addAlarmAction(alarmAction);
      created.addOkAction(alarmAction);
    };
    notify(
      this.deadLetterQueue
        .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) })
        .createAlarm(this, 'DeadLetters', {
          alarmDescription: 'Webhook deliveries whose outcome could not be recorded are in the dead-letter queue',
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
    );
    const count = (id: string, metricName: string, pattern: ReturnType<typeof FilterPattern.stringValue>) =>
      new MetricFilter(this, id, {
        logGroup: this.deliverFunction.logGroup,
        filterPattern: pattern,
        metricNamespace: METRICS_NAMESPACE,
        metricName,
        metricValue: '1',
      }).metric({ statistic: 'Sum', period: FIFTEEN_MINUTES });
    const failed = count('FailedFilter', DELIVERY_FAILED, FilterPattern.stringValue('$.outcome', '=', 'FAILURE'));
    const finished = count(
      'FinishedFilter',
      DELIVERY_FINISHED,
      FilterPattern.stringValue('$.message', '=', 'Webhook delivery finished'),
    );
    notify(
      new MathExpression({
        expression: `IF(FILL(finished, 0) >= ${MIN_DELIVERIES}, 100 * FILL(failed, 0) / finished, 0)`,
        usingMetrics: { failed, finished },
        period: FIFTEEN_MINUTES,
        label: 'webhook deliveries FAILURE %',
      }).createAlarm(this, 'FailureRate', {
        alarmDescription: `More than ${FAILURE_RATE_PERCENT}% of webhook deliveries ended in FAILURE`,
        threshold: FAILURE_RATE_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
