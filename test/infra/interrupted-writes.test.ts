import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ACTIVITY_INDEX, INDEX } from '../../shared/db/keys.ts';
import { synthStack } from '../fixtures/stack.ts';

const prod = synthStack('prod');

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = (type: string) => prod.findResources(type) as Record<string, Resource>;

describe('the function that finishes or undoes interrupted writes', () => {
  it('runs every minute, without retries', () => {
    prod.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      Description: 'Finishes the ungrouping of deleted asset groups and rolls back abandoned reports',
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^InterruptedWritesFunction'), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 0 },
      }),
    });
  });

  it('may query the group index and the index that holds incomplete reports, and no other', () => {
    const [, policy] =
      Object.entries(resources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith('InterruptedWritesFunctionRoleDefaultPolicy'),
      ) ?? [];
    const indexes = [...JSON.stringify(policy).matchAll(/\/index\/([A-Za-z0-9]+)/g)].map((match) => match[1]);

    expect(indexes.sort()).toEqual([ACTIVITY_INDEX.list1.name, INDEX.byGroup.name].sort());
    expect(JSON.stringify(policy)).not.toContain('dynamodb:Scan');
  });
});
