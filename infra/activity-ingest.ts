import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { type FunctionSettings, grantTable, grantTableWrites } from './api-function.ts';
import { WORKER_WRITES } from './routes.ts';
import { QueueWorker } from './worker-queue.ts';

export type ActivityIngestProps = { table: ITable; settings: FunctionSettings };

const FUNCTION_TIMEOUT_SECONDS = 30;

/**
 * The activity feed: an SQS queue whose messages (one activity change each) a Lambda applies
 * to the table; a message that keeps failing moves to the dead-letter queue after 5 receives,
 * and one that can never be applied (not JSON, not a valid change) is moved there at once by
 * the function.
 */
export class ActivityIngest extends QueueWorker {
  constructor(scope: Construct, id: string, { table, settings }: ActivityIngestProps) {
    super(scope, id, {
      functionId: 'Function',
      worker: 'ingest-activity',
      memorySize: 256,
      timeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
      settings,
      environment: ({ deadLetterQueue }) => ({
        TABLE_NAME: table.tableName,
        DEAD_LETTER_QUEUE_URL: deadLetterQueue.queueUrl,
      }),
    });
    // Reads the record and the organization's brands; writes through TransactWriteItems, to its own partitions only.
    grantTable(table, this.function, ['dynamodb:GetItem', 'dynamodb:BatchGetItem']);
    grantTableWrites(table, this.function, WORKER_WRITES['ingest-activity'], [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    this.deadLetterQueue.grantSendMessages(this.function);
  }
}
