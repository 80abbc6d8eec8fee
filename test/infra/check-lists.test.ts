import { readFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { CheckLists } from '../../infra/check-lists.ts';

const cdkContext = JSON.parse(readFileSync('cdk.json', 'utf8')).context as Record<string, unknown>;

/** Synthesizes with cdk.json's context; bundling is skipped (`cdk synth` exercises it). */
const synth = () => {
  const app = new App({ context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'CheckListsTest');
  const lists = new CheckLists(stack, 'CheckLists', {
    settings: { tracing: false, logLevel: 'INFO', serviceName: 'test' },
    lists: { seal: 'https://seal.example/list.json' },
    environment: { TABLE_NAME: 'table' },
  });
  lists.grantReadLists(
    new Role(stack, 'CheckFunctionRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }),
  );
  return Template.fromStack(stack);
};

const template = synth();
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
const statements = (): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) =>
      (policy as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement,
  );

describe('the check lists construct', () => {
  it('keeps snapshots in a private, versioned, encrypted bucket that refuses plain HTTP', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.objectLike({}),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('runs the sync function on Node 24, arm64, without Node reading source maps at load, and with the configured list URLs', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: Match.objectLike({
          NODE_OPTIONS: Match.absent(),
          LIST_URLS: '{"seal":"https://seal.example/list.json"}',
          LISTS_BUCKET: Match.anyValue(),
        }),
      },
    });
  });

  it('invokes the sync function every 5 minutes without retries', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 0 }) }),
    });
  });

  it('grants nothing on every resource, and object access only under lists/', () => {
    const all = statements();
    const resources = all.flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]));
    const objectGrants = all.filter((s) => [s.Action].flat().some((action) => /^s3:(Get|Put)Object/.test(action)));

    expect(resources).not.toContain('*');
    expect(objectGrants.length).toBeGreaterThan(0);
    for (const grant of objectGrants) {
      const objectArns = [grant.Resource]
        .flat()
        .map((resource) => JSON.stringify(resource))
        .filter((r) => r.includes('/'));
      for (const arn of objectArns) expect(arn).toContain('/lists/*');
    }
  });

  it('lets the sync function write snapshots but not delete them', () => {
    const actions = statements().flatMap((s) => [s.Action].flat());

    expect(actions).toContain('s3:PutObject');
    expect(actions.filter((action) => action.startsWith('s3:Delete'))).toEqual([]);
  });
});
