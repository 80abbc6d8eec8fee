import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type FunctionSettings, grantTable, grantTableWrites, serviceFunction } from './api-function.ts';
import { WORKER_WRITES, WORKERS } from './routes.ts';
import { workerQueues } from './worker-queue.ts';

export type ActivityIngestProps = { table: ITable; settings: FunctionSettings };

const FUNCTION_TIMEOUT_SECONDS = 30;

/**
 * The activity feed: an SQS queue whose messages (one activity change each) a Lambda applies
 * to the table; a message that keeps failing moves to the dead-letter queue after 5 receives,
 * and one that can never be applied (not JSON, not a valid change) is moved there at once by
 * the function.
 */
export class ActivityIngest extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, { table, settings }: ActivityIngestProps) {
    super(scope, id);
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workerQueues(this, FUNCTION_TIMEOUT_SECONDS));
    this.function = serviceFunction(this, 'Function', {
      entry: WORKERS['ingest-activity'],
      memorySize: 256,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      settings,
      environment: { TABLE_NAME: table.tableName, DEAD_LETTER_QUEUE_URL: this.deadLetterQueue.queueUrl },
    });
    this.function.addEventSource(new SqsEventSource(this.queue, { reportBatchItemFailures: true }));
    // Reads the record and the organization's brands; writes through TransactWriteItems, to its own partitions only.
    grantTable(table, this.function, ['dynamodb:GetItem', 'dynamodb:BatchGetItem']);
    grantTableWrites(table, this.function, WORKER_WRITES['ingest-activity'], [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    this.deadLetterQueue.grantSendMessages(this.function);
  }
}
