import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { CfnSubscriptionFilter } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { Construct } from 'constructs';
import { ACTIVITY_INDEX, INDEX } from '../shared/db/keys.ts';
import { SHIPPED_ETH_LIST } from '../shared/db/list-snapshot-store.ts';
import { SHIPPED_CT_LOG_LIST } from '../shared/db/static-ct-sources.ts';
import { SAMPLES_MESSAGE } from '../shared/domain/detections/check-samples.ts';
import { CLASS_EXPRESSIONS, SCHEDULE_CLASSES } from '../shared/domain/detections/schedules.ts';
import {
  type FunctionSettings,
  grantTable,
  grantTableWrites,
  grantWorkerTable,
  serviceFunction,
} from './api-function.ts';
import type { CheckLists } from './check-lists.ts';
import { WORKER_WRITES, WORKERS } from './routes.ts';
import { logicalId } from './scheduled-job.ts';
import { QueueWorker } from './worker-queue.ts';

export type DetectionRunsProps = {
  table: ITable;
  settings: FunctionSettings;
  lists: Pick<CheckLists, 'bucket' | 'grantReadLists'>;
};

/** A run reads a CT log batch or resolves thousands of names: minutes, not seconds. */
const RUN_TIMEOUT_SECONDS = 300;
const SCHEDULE_TIMEOUT_SECONDS = 60;

/**
 * Detection runs: the run route and the scheduler put one message per run on an SQS queue and
 * the worker runs it (one run per invocation; a run that keeps failing moves to the dead-letter
 * queue after 5 receives). The scheduler runs on one EventBridge schedule per schedule class,
 * never one per config, so the stack's size does not grow with the configs. The check's samples
 * of unknown content (log lines of its own) reach the sample worker through a subscription filter
 * on the check's log group: the check itself sends nothing anywhere.
 */
export class DetectionRuns extends QueueWorker {
  /** The run worker: the queue's function. */
  readonly runFunction: NodejsFunction;
  readonly scheduleFunction: NodejsFunction;
  readonly sampleFunction: NodejsFunction;

  constructor(scope: Construct, id: string, { table, settings, lists }: DetectionRunsProps) {
    const listsEnvironment = () => ({ TABLE_NAME: table.tableName, LISTS_BUCKET: lists.bucket.bucketName });
    super(scope, id, {
      functionId: 'RunFunction',
      worker: 'run-detections',
      memorySize: 1024,
      timeoutSeconds: RUN_TIMEOUT_SECONDS,
      settings,
      files: [SHIPPED_ETH_LIST, SHIPPED_CT_LOG_LIST],
      environment: listsEnvironment,
      source: { batchSize: 1 },
    });
    this.runFunction = this.function;
    // Reads configs, positions, the check index, brands, URL assets and an asset's records; writes
    // the run's detections and history and the reports auto-reporting files, through its partitions only.
    const checkIndexes = [INDEX.byType.name, ACTIVITY_INDEX.byAsset.name];
    grantWorkerTable(table, this.runFunction, 'run-detections', checkIndexes);
    lists.grantReadLists(this.runFunction);

    this.scheduleFunction = serviceFunction(this, 'ScheduleFunction', {
      entry: WORKERS['schedule-detections'],
      memorySize: 256,
      timeout: Duration.seconds(SCHEDULE_TIMEOUT_SECONDS),
      settings,
      environment: { TABLE_NAME: table.tableName, DETECTION_QUEUE_URL: this.queue.queueUrl },
    });
    grantTable(table, this.scheduleFunction, ['dynamodb:Query']);
    grantTableWrites(table, this.scheduleFunction, WORKER_WRITES['schedule-detections'], [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    this.queue.grantSendMessages(this.scheduleFunction);
    for (const scheduleClass of SCHEDULE_CLASSES) {
      new Schedule(this, `Schedule-${scheduleClass}`, {
        description: `Queues the due detection runs of the ${scheduleClass} configs`,
        schedule: ScheduleExpression.expression(CLASS_EXPRESSIONS[scheduleClass]),
        target: new LambdaInvoke(this.scheduleFunction, {
          retryAttempts: 0,
          input: ScheduleTargetInput.fromObject({ 'detail-type': 'Scheduled Event', scheduleClass }),
        }),
      });
    }

    this.sampleFunction = serviceFunction(this, 'SampleFunction', {
      entry: WORKERS['feed-check-samples'],
      memorySize: 512,
      timeout: Duration.seconds(SCHEDULE_TIMEOUT_SECONDS),
      settings,
      files: [SHIPPED_ETH_LIST],
      environment: listsEnvironment(),
    });
    // As the run worker: the check's verdicts, brands, assets and records; detections and reports.
    grantWorkerTable(table, this.sampleFunction, 'feed-check-samples', checkIndexes);
    lists.grantReadLists(this.sampleFunction);
    Validations.of(Stack.of(this)).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId(this.scheduleFunction)}.Arn>:*]`,
      reason:
        "The schedules' role may invoke the detection scheduler's versions and aliases (qualified ARNs), and no other function.",
    });
  }

  /**
   * Hands the sample lines of the check function `fn` to the sample worker: a subscription filter on
   * its log group (in `scope`, the check's stack), and the permission it needs created before it.
   */
  subscribeCheckSamples(scope: Construct, fn: NodejsFunction): void {
    const permission = new CfnPermission(scope, 'CheckSamplesPermission', {
      action: 'lambda:InvokeFunction',
      functionName: this.sampleFunction.functionArn,
      principal: 'logs.amazonaws.com',
      sourceArn: fn.logGroup.logGroupArn,
    });
    const filter = new CfnSubscriptionFilter(scope, 'CheckSamplesSubscription', {
      logGroupName: fn.logGroup.logGroupName,
      destinationArn: this.sampleFunction.functionArn,
      filterPattern: `{ $.message = "${SAMPLES_MESSAGE}" }`,
    });
    filter.addDependency(permission);
  }

  /** Lets a route queue runs: it may send to the queue, whose URL it reads from DETECTION_QUEUE_URL. */
  grantQueueRuns(grantee: IGrantable): void {
    this.queue.grantSendMessages(grantee);
  }
}
