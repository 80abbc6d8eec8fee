import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

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
