import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ACTIVITY_INDEX, INDEX } from '../shared/db/keys.ts';
import { SHIPPED_ETH_LIST } from '../shared/db/list-snapshot-store.ts';
import { type FunctionSettings, grantWorkerTable } from './api-function.ts';
import type { CheckLists } from './check-lists.ts';
import { QueueWorker } from './worker-queue.ts';

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
export class ScanQueue extends QueueWorker {
  constructor(scope: Construct, id: string, { table, settings, lists }: ScanQueueProps) {
    super(scope, id, {
      functionId: 'Function',
      worker: 'run-scans',
      memorySize: 512,
      timeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
      settings,
      files: [SHIPPED_ETH_LIST],
      environment: () => ({ TABLE_NAME: table.tableName, LISTS_BUCKET: lists.bucket.bucketName }),
      source: { batchSize: BATCH_SIZE },
    });
    // Reads the scan, the check index, the organization's brands and URL assets, disputes and
    // records (an asset's by its index); writes scans, the report a MALICIOUS one files and
    // detections, through its own partitions only.
    grantWorkerTable(table, this.function, 'run-scans', [INDEX.byType.name, ACTIVITY_INDEX.byAsset.name]);
    lists.grantReadLists(this.function);
  }

  /** Lets a route start scans: it may send to the queue, whose URL it reads from SCAN_QUEUE_URL. */
  grantStartScans(grantee: IGrantable): void {
    this.queue.grantSendMessages(grantee);
  }
}
