import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ACTIVITY_INDEX, INDEX } from '../shared/db/keys.ts';
import { SHIPPED_ETH_LIST } from '../shared/db/list-snapshot-store.ts';
import { type FunctionSettings, grantTable, grantTableWrites, serviceFunction } from './api-function.ts';
import type { CheckLists } from './check-lists.ts';
import { WORKER_WRITES, WORKERS } from './routes.ts';
import { workerQueues } from './worker-queue.ts';

export type ScanQueueProps = {
  table: ITable;
  settings: FunctionSettings;
  lists: Pick<CheckLists, 'bucket' | 'grantReadLists'>;
};

const FUNCTION_TIMEOUT_SECONDS = 30;
/** Scans one invocation runs: each reads a few items and may file a report. */
const BATCH_SIZE = 10;

/**
 * The scans of submitted content: the routes that start scans put one message per scan (its id)
 * on an SQS queue, and the worker runs them; a scan that keeps failing moves to the dead-letter
 * queue after 5 receives, and one already run is not run again (the worker checks its status).
 */
export class ScanQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, { table, settings, lists }: ScanQueueProps) {
    super(scope, id);
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workerQueues(this, FUNCTION_TIMEOUT_SECONDS));
    this.function = serviceFunction(this, 'Function', {
      entry: WORKERS['run-scans'],
      memorySize: 512,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      settings,
      files: [SHIPPED_ETH_LIST],
      environment: { TABLE_NAME: table.tableName, LISTS_BUCKET: lists.bucket.bucketName },
    });
    this.function.addEventSource(
      new SqsEventSource(this.queue, { batchSize: BATCH_SIZE, reportBatchItemFailures: true }),
    );
    // Reads the scan, the check index, the organization's brands and URL assets, disputes and
    // records (an asset's by its index); writes scans, the report a MALICIOUS one files and
    // detections, through its own partitions only.
    grantTable(
      table,
      this.function,
      ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
      [INDEX.byType.name, ACTIVITY_INDEX.byAsset.name],
    );
    grantTableWrites(table, this.function, WORKER_WRITES['run-scans']);
    lists.grantReadLists(this.function);
  }

  /** Lets a route start scans: it may send to the queue, whose URL it reads from SCAN_QUEUE_URL. */
  grantStartScans(grantee: IGrantable): void {
    this.queue.grantSendMessages(grantee);
  }
}
