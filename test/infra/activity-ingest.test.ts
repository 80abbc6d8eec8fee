import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ActivityIngest } from '../../infra/activity-ingest.ts';
import { WORKER_WRITES } from '../../infra/routes.ts';

let template: Template;

beforeAll(() => {
  const stack = new Stack(new App(), 'IngestTest');
  const table = new Table(stack, 'Table', {
    partitionKey: { name: 'PK', type: AttributeType.STRING },
    sortKey: { name: 'SK', type: AttributeType.STRING },
  });
  new ActivityIngest(stack, 'ActivityIngest', {
    table,
    settings: { tracing: false, logLevel: 'INFO', serviceName: 'test' },
  });
  template = Template.fromStack(stack);
});

describe('ActivityIngest construct', () => {
  it('feeds a Node 24 arm64 function from an SQS queue, reporting failed messages one by one', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: Match.objectLike({ TABLE_NAME: { Ref: Match.anyValue() }, NODE_OPTIONS: Match.absent() }),
      },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('moves a message to the dead-letter queue after 5 receives', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() },
    });
  });

  it('refuses requests without TLS on both queues', () => {
    const policies = template.findResources('AWS::SQS::QueuePolicy', {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
    });

    expect(Object.keys(policies)).toHaveLength(2);
  });

  it('grants the function only the table actions ingestion uses, its writes to its own partitions only', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], Effect: 'Allow' }),
          Match.objectLike({
            Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Effect: 'Allow',
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...WORKER_WRITES['ingest-activity']] } },
          }),
        ]),
      },
    });
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Effect: string; Action: string | string[] }[],
    );
    const allowed = statements
      .filter((s) => s.Effect === 'Allow')
      .flatMap((s) => [s.Action].flat())
      .filter((a) => a.startsWith('dynamodb:'));
    expect(allowed.sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
  });
});
