import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { ExternalSourceName } from '../shared/domain/check/index.ts';
import { type FunctionSettings, serviceFunction } from './api-function.ts';
import { WORKERS } from './routes.ts';
import { everyFiveMinutes, grantPrefixRead, grantPrefixWrite } from './scheduled-job.ts';

const DEFAULT_LISTS: Partial<Record<ExternalSourceName, string>> = {
  'polkadot-phishing': 'https://polkadot.js.org/phishing/all.json',
};

export type CheckListsProps = {
  settings: FunctionSettings;
  /** List URLs by source; `vendor` and `seal` have no public default. */
  lists?: Partial<Record<ExternalSourceName, string>>;
  /** Extra environment for the sync function; it never touches the table and is granted nothing on it. */
  environment?: Record<string, string>;
  /** RETAIN by default; DESTROY empties the bucket on stack deletion (dev stages). */
  removalPolicy?: RemovalPolicy;
};

/** Where the snapshots live in the bucket; readers are granted this prefix only. */
const PREFIX = 'lists/';

/**
 * The asset check's external lists: a private, versioned bucket of list snapshots and a
 * function, run every 5 minutes, that fetches each configured list and stores a new snapshot
 * when it changed. Grant the check function `grantReadLists` and give it LISTS_BUCKET.
 */
export class CheckLists extends Construct {
  readonly bucket: Bucket;
  readonly syncFunction: NodejsFunction;
  /** The sources with a configured list URL. */
  readonly sources: ExternalSourceName[];

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

    const lists = props.lists ?? DEFAULT_LISTS;
    this.sources = Object.keys(lists) as ExternalSourceName[];
    this.syncFunction = serviceFunction(this, 'Sync', {
      entry: WORKERS['sync-lists'],
      settings: props.settings,
      memorySize: 1024,
      timeout: Duration.minutes(2),
      environment: {
        ...props.environment,
        LISTS_BUCKET: this.bucket.bucketName,
        LIST_URLS: JSON.stringify(lists),
      },
    });
    this.grantReadLists(this.syncFunction);
    grantPrefixWrite(this.bucket, PREFIX, this.syncFunction);
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "The bucket holds copies of public lists (lists/, written by the sync function) and snapshots of the service's own verdicts (verdicts/, written by the snapshot function), each writer granted its prefix only and logging every object it stores; nothing else writes to it and nobody outside the stack reads it. Server access logs would add a log bucket recording only these functions' own requests.",
    });

    everyFiveMinutes(this, 'SyncSchedule', this.syncFunction, 'Refreshes the asset check lists');
  }

  /** Read access to the snapshots, for the check function. */
  grantReadLists(grantee: IGrantable) {
    grantPrefixRead(this.bucket, PREFIX, grantee, 'Snapshot keys are versioned names under the lists/ prefix');
  }
}
