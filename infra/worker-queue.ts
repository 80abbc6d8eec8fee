import { Duration } from 'aws-cdk-lib';
import { SqsEventSource, type SqsEventSourceProps } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type FunctionSettings, type ServiceFunctionProps, serviceFunction } from './api-function.ts';
import { WORKERS, type Worker } from './routes.ts';

/**
 * A worker's SQS queue and its dead-letter queue (`Queue` and `DeadLetterQueue` in `scope`): SSL
 * only, SQS-managed encryption, a message moved aside after 5 receives and kept 14 days there.
 */
export const workerQueues = (scope: Construct, functionTimeoutSeconds: number) => {
  const deadLetterQueue = new Queue(scope, 'DeadLetterQueue', {
    enforceSSL: true,
    encryption: QueueEncryption.SQS_MANAGED,
    retentionPeriod: Duration.days(14),
  });
  const queue = new Queue(scope, 'Queue', {
    enforceSSL: true,
    encryption: QueueEncryption.SQS_MANAGED,
    // AWS's guidance for Lambda event sources: at least six times the function timeout.
    visibilityTimeout: Duration.seconds(6 * functionTimeoutSeconds),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: 5 },
  });
  return { queue, deadLetterQueue };
};

export type WorkerQueues = ReturnType<typeof workerQueues>;

export type QueueWorkerProps = {
  /** The function's construct id, beside its queues. */
  functionId: string;
  worker: Worker;
  memorySize: number;
  timeoutSeconds: number;
  settings: FunctionSettings;
  files?: ServiceFunctionProps['files'];
  /** The function's environment, which may name its queues. */
  environment: (queues: WorkerQueues) => Record<string, string>;
  /** How the function takes messages; it always reports the failed ones of a batch alone. */
  source?: Omit<SqsEventSourceProps, 'reportBatchItemFailures'>;
};

/**
 * A worker fed by its own queue (`workerQueues`): the queues, the function (`functionId` in this
 * construct), and the event source that hands it the queue's messages and receives again only the
 * messages of a batch it reports failed.
 */
export class QueueWorker extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly function: NodejsFunction;

  constructor(
    scope: Construct,
    id: string,
    { functionId, worker, memorySize, timeoutSeconds, settings, files, environment, source }: QueueWorkerProps,
  ) {
    super(scope, id);
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workerQueues(this, timeoutSeconds));
    this.function = serviceFunction(this, functionId, {
      entry: WORKERS[worker],
      memorySize,
      timeout: Duration.seconds(timeoutSeconds),
      settings,
      ...(files === undefined ? {} : { files }),
      environment: environment({ queue: this.queue, deadLetterQueue: this.deadLetterQueue }),
    });
    this.function.addEventSource(new SqsEventSource(this.queue, { ...source, reportBatchItemFailures: true }));
  }
}
