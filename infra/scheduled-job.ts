import { type CfnElement, Duration, Names, Stack, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct, type IConstruct } from 'constructs';

/** The CloudFormation logical id of a construct's resource, as cdk-nag names it in a finding. */
export const logicalId = (construct: Construct): string => {
  const stack = Stack.of(construct);
  return stack.resolve(stack.getLogicalId(construct.node.defaultChild as CfnElement)) as string;
};

/**
 * How cdk-nag names the ARN of `construct`'s resource in a finding on `consumer`: by its logical id
 * in the same stack, or, in a nested stack, by the parameter CDK passes the ARN in.
 */
export const arnName = (construct: Construct, consumer: IConstruct): string =>
  Stack.of(construct) === Stack.of(consumer)
    ? `${logicalId(construct)}.Arn`
    : `referenceto${Names.uniqueId(construct.node.defaultChild as CfnElement)}Arn`;

/** Runs `fn` every `minutes` minutes, without retries: the next run is never far. */
const everyMinutes = (minutes: number) => (scope: Construct, id: string, fn: NodejsFunction, description: string) => {
  new Schedule(scope, id, {
    description,
    schedule: ScheduleExpression.rate(Duration.minutes(minutes)),
    target: new LambdaInvoke(fn, { retryAttempts: 0 }),
  });
  Validations.of(Stack.of(scope)).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${logicalId(fn)}.Arn>:*]`,
    reason: `The schedule's role may invoke this function's versions and aliases (qualified ARNs), and no other function.`,
  });
};

/** Every 5 minutes: what the job keeps (lists, snapshots) is read meanwhile from the last run's output. */
export const everyFiveMinutes = everyMinutes(5);

/** Every minute: the next run is a minute away and resumes where this one stopped. */
export const everyMinute = everyMinutes(1);

/** Lets `fn` write objects under `prefix` of the bucket, and nothing else in it. */
export const grantPrefixWrite = (bucket: IBucket, prefix: string, fn: NodejsFunction) => {
  fn.addToRolePolicy(
    new PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects(`${prefix}*`)] }),
  );
};

/**
 * Lets `grantee` read objects under `prefix` of the bucket. ListBucket makes a missing object
 * answer NoSuchKey rather than AccessDenied (S3 checks it without a prefix on GetObject).
 */
export const grantPrefixRead = (bucket: IBucket, prefix: string, grantee: IGrantable, why: string) => {
  const principal = grantee.grantPrincipal;
  principal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(`${prefix}*`)] }),
  );
  principal.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
  if (!Construct.isConstruct(principal)) return;
  Validations.of(principal).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${arnName(bucket as unknown as Construct, principal)}>/${prefix}*]`,
    reason: `${why}; the grant covers the ${prefix} prefix only.`,
  });
};
