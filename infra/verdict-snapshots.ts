import { CustomResource, Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable, IRole } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { CHECK_INDEX } from '../shared/db/keys.ts';
import { type FunctionSettings, grantTable, grantTableWrites, serviceFunction } from './api-function.ts';
import { WORKER_WRITES, WORKERS } from './routes.ts';
import { arnName, everyFiveMinutes, everyMinute, grantPrefixRead, grantPrefixWrite } from './scheduled-job.ts';

/** Where the snapshots live in the bucket; readers are granted this prefix only. */
const PREFIX = 'verdicts/';
const FEED_PREFIX = 'verdicts/feed/';

export type VerdictSnapshotsProps = { table: ITable; bucket: IBucket; settings: FunctionSettings };

/**
 * Snapshots of the service's verdicts for the check's replicas: a function, run every 5 minutes,
 * that compacts the last snapshot with the verdict log since (with no snapshot, or on a gap, it
 * reads the sharded check index again by Query, over as many runs as that takes; no Scan) and
 * stores it under `verdicts/` in the given bucket. Replicas are granted `grantReadSnapshots`, given VERDICTS_BUCKET, and created
 * after the first snapshot (`runsBefore`).
 */
export class VerdictSnapshots extends Construct {
  readonly function: NodejsFunction;
  readonly publisher: NodejsFunction;
  readonly #bucket: IBucket;
  readonly #firstSnapshot: CustomResource;

  constructor(scope: Construct, id: string, props: VerdictSnapshotsProps) {
    super(scope, id);
    this.#bucket = props.bucket;
    this.function = serviceFunction(this, 'Snapshot', {
      entry: WORKERS['snapshot-verdicts'],
      settings: props.settings,
      // Compacting 10 million keys and 100,000 changes peaks at about 3.5 GB (`npm run bench -- compaction`);
      // CPU scales with memory too.
      memorySize: 4096,
      timeout: Duration.minutes(5),
      environment: { TABLE_NAME: props.table.tableName, VERDICTS_BUCKET: props.bucket.bucketName },
    });
    grantTable(props.table, this.function, ['dynamodb:Query'], [CHECK_INDEX.name]);
    grantTableWrites(props.table, this.function, WORKER_WRITES['snapshot-verdicts']);
    this.grantReadSnapshots(this.function);
    grantPrefixWrite(props.bucket, PREFIX, this.function);
    // Replicas follow the log between snapshots.
    everyFiveMinutes(this, 'Schedule', this.function, 'Snapshots the service verdicts for the asset check replicas');
    // Replicas have no Scan grant, so without a snapshot they cannot start. The function itself is
    // a custom resource: the deployment that creates this construct (a new stack, or one that had
    // no snapshots) runs it once, after its role and grants exist. No provider function: its
    // CDK-made role would carry the managed basic-execution policy.
    this.#firstSnapshot = new CustomResource(this, 'FirstSnapshot', {
      serviceToken: this.function.functionArn,
      resourceType: 'Custom::VerdictSnapshot',
    });
    this.#firstSnapshot.node.addDependency(this.function, this.function.role as IRole);

    // The verdict publisher: every minute a run that publishes for a little under its 75 s, under
    // a lease, so runs overlap by seconds and one publishes at a time (the next takes over when
    // the last lets the lease go). It reads the log's shards and writes deltas under verdicts/feed/.
    this.publisher = serviceFunction(this, 'Publisher', {
      entry: WORKERS['publish-verdicts'],
      settings: props.settings,
      timeout: Duration.seconds(75),
      environment: { TABLE_NAME: props.table.tableName, VERDICTS_BUCKET: props.bucket.bucketName },
    });
    grantTable(props.table, this.publisher, ['dynamodb:Query']);
    grantTableWrites(props.table, this.publisher, WORKER_WRITES['publish-verdicts'], ['dynamodb:UpdateItem']);
    this.grantReadSnapshots(this.publisher);
    grantPrefixWrite(props.bucket, FEED_PREFIX, this.publisher);
    const publisherRole = this.publisher.role as IRole;
    Validations.of(publisherRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${arnName(props.bucket as unknown as Construct, publisherRole)}>/${FEED_PREFIX}*]`,
      reason: `The publisher writes numbered deltas and a pointer, new names every quarter second; the grant covers the ${FEED_PREFIX} prefix only.`,
    });
    everyMinute(this, 'PublishSchedule', this.publisher, 'Publishes the verdict feed the asset check replicas poll');
    // Deltas are read within seconds of being written; the pointer is overwritten four times a second.
    if (props.bucket instanceof Bucket) {
      props.bucket.addLifecycleRule({
        prefix: FEED_PREFIX,
        expiration: Duration.days(1),
        noncurrentVersionExpiration: Duration.days(1),
      });
    }
  }

  /** Creates `replica` only once the first snapshot is stored, so it never starts without one. */
  runsBefore(replica: Construct) {
    replica.node.addDependency(this.#firstSnapshot);
  }

  /** Read access to the snapshots. */
  grantReadSnapshots(grantee: IGrantable) {
    grantPrefixRead(this.#bucket, PREFIX, grantee, 'The snapshot is one object under the verdicts/ prefix');
  }
}
