import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthService } from '../fixtures/stack.ts';

const service = synthService('prod');
const prod = service.root;
const check = service.areas.CheckRoutes;

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };
const resources = (type: string) => prod.findResources(type) as Record<string, Resource>;
const everywhere = (type: string) =>
  service.all.flatMap((template) => Object.entries(template.findResources(type)) as [string, Resource][]);
const policyOf = (prefix: string): string =>
  JSON.stringify(everywhere('AWS::IAM::Policy').find(([id]) => id.startsWith(prefix))?.[1]);
const environmentOf = (prefix: string): Record<string, unknown> => {
  const fn = everywhere('AWS::Lambda::Function').find(([id]) => id.startsWith(prefix))?.[1];
  return (fn?.Properties.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};
};

describe('verdict snapshots in the stack', () => {
  it('runs the snapshot function every 5 minutes, without retries', () => {
    prod.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Description: 'Snapshots the service verdicts for the asset check replicas',
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^VerdictSnapshotsSnapshot'), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 0 },
      }),
    });
  });

  it('takes the first snapshot when the stack is created, after the snapshot grants and before the replica functions', () => {
    const [firstSnapshot, resource] = Object.entries(resources('Custom::VerdictSnapshot'))[0] ?? [];
    const logicalIds = (type: string) => Object.keys(resources(type));
    const snapshotFunction = logicalIds('AWS::Lambda::Function').find((id) =>
      id.startsWith('VerdictSnapshotsSnapshot'),
    );
    const snapshotPolicy = logicalIds('AWS::IAM::Policy').find((id) => id.startsWith('VerdictSnapshotsSnapshotRole'));
    const areaStack = (id: string) =>
      Object.entries(resources('AWS::CloudFormation::Stack')).find(([logicalId]) => logicalId.startsWith(id))?.[1];

    expect(Object.keys(resources('Custom::VerdictSnapshot'))).toHaveLength(1);
    expect(resource?.Properties).toEqual({ ServiceToken: { 'Fn::GetAtt': [snapshotFunction, 'Arn'] } });
    expect(resource?.DependsOn).toEqual(expect.arrayContaining([snapshotFunction, snapshotPolicy]));
    // The replica routes are in the check area's stack, which CloudFormation creates after the first snapshot.
    expect(areaStack('CheckRoutes')?.DependsOn).toContain(firstSnapshot);
    expect(check).toBeDefined();
    for (const other of ['AllowlistRoutes', 'LifecycleRoutes', 'PagesRoutes']) {
      expect(areaStack(other)?.DependsOn ?? []).not.toContain(firstSnapshot);
    }
  });

  it('lets the snapshot function write snapshots under verdicts/ and Query the log and the check index, with no Scan', () => {
    const policy = policyOf('VerdictSnapshotsSnapshotRoleDefaultPolicy');

    expect(policy).toMatch(
      /"Action":"dynamodb:Query","Effect":"Allow","Resource":\[\{"Fn::GetAtt":\["\w+","Arn"\]\},\{"Fn::Join":\["",\[\{"Fn::GetAtt":\["\w+","Arn"\]\},"\/index\/checkEntries"\]\]\}\]/,
    );
    expect(policy).not.toContain('dynamodb:Scan');
    expect(policy).toMatch(
      /"Action":\["s3:GetObject","s3:PutObject"\],"Effect":"Allow","Resource":\{"Fn::Join":\["",\[\{"Fn::GetAtt":\["CheckListsBucket\w+","Arn"\]\},"\/verdicts\/\*"\]\]\}/,
    );
    expect(policy).not.toContain('/lists/');
  });

  it('gives the replica routes the bucket and read access to verdicts/ only, and no write on it', () => {
    for (const name of ['checkasset', 'getblocklistversion']) {
      const policy = policyOf(`${name}FunctionRoleDefaultPolicy`);

      expect(environmentOf(`${name}Function`)).toHaveProperty('VERDICTS_BUCKET');
      expect(policy).toContain('/verdicts/*');
      expect(policy).not.toContain('s3:PutObject');
      expect(policy).not.toContain('dynamodb:Scan');
    }
  });

  it('gives the changelog route the table only', () => {
    expect(environmentOf('getchangelogFunction')).not.toHaveProperty('VERDICTS_BUCKET');
    expect(policyOf('getchangelogFunctionRoleDefaultPolicy')).not.toContain('s3:');
  });
});
