import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import type { ExternalSourceName } from '../shared/domain/check/types.ts';
import { serviceFunction } from './api-function.ts';
import { WORKERS } from './routes.ts';

const DEFAULT_LISTS: Partial<Record<ExternalSourceName, string>> = {
  'polkadot-phishing': 'https://polkadot.js.org/phishing/all.json',
};

export type CheckListsProps = {
  /** List URLs by source; `vendor` and `seal` have no public default. */
  lists?: Partial<Record<ExternalSourceName, string>>;
  /** Extra environment for the sync function; it never touches the table and is granted nothing on it. */
  environment?: Record<string, string>;
  /** RETAIN by default; DESTROY empties the bucket on stack deletion (dev stages). */
  removalPolicy?: RemovalPolicy;
};

/** Where the snapshots live in the bucket; readers are granted this prefix only. */
const OBJECTS = 'lists/*';

/**
 * The asset check's external lists: a private, versioned bucket of list snapshots and a
 * function, run every 5 minutes, that fetches each configured list and stores a new snapshot
 * when it changed. Grant the check function `grantReadLists` and give it LISTS_BUCKET.
 */
export class CheckLists extends Construct {
  readonly bucket: Bucket;
  readonly syncFunction: NodejsFunction;

  constructor(scope: Construct, id: string, props: CheckListsProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: true,
      encryption: BucketEncryption.S3_MANAGED,
      // Snapshots are written only when a list changes; the `latest` pointers are overwritten every sync.
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(30) }],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });

    this.syncFunction = serviceFunction(this, 'Sync', {
      entry: WORKERS['sync-lists'],
      memorySize: 1024,
      timeout: Duration.minutes(2),
      environment: {
        ...props.environment,
        LISTS_BUCKET: this.bucket.bucketName,
        LIST_URLS: JSON.stringify(props.lists ?? DEFAULT_LISTS),
      },
    });
    this.bucket.grantRead(this.syncFunction, OBJECTS);
    this.bucket.grantPut(this.syncFunction, OBJECTS);

    new Schedule(this, 'SyncSchedule', {
      description: 'Refreshes the asset check lists',
      schedule: ScheduleExpression.rate(Duration.minutes(5)),
      // The next run is 5 minutes away; retrying a failed sync sooner gains nothing.
      target: new LambdaInvoke(this.syncFunction, { retryAttempts: 0 }),
    });
  }

  /** Read access to the snapshots, for the check function. */
  grantReadLists(grantee: IGrantable) {
    return this.bucket.grantRead(grantee, OBJECTS);
  }
}
