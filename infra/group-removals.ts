import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { INDEX } from '../shared/db/keys.ts';
import { type FunctionSettings, grantTable, serviceFunction } from './api-function.ts';
import { WORKERS } from './routes.ts';

export type GroupRemovalsProps = { table: ITable; settings: FunctionSettings };

/**
 * Finishes group deletes: a delete request ungroups what it can in a bounded time and records the
 * rest; this function, run every minute, ungroups the rest in exact steps. A run is given a minute,
 * so two runs rarely overlap (and overlapping runs are harmless: every step is conditional).
 */
export class GroupRemovals extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, { table, settings }: GroupRemovalsProps) {
    super(scope, id);
    this.function = serviceFunction(this, 'Function', {
      entry: WORKERS['resume-group-removals'],
      memorySize: 256,
      timeout: Duration.minutes(1),
      settings,
      environment: { TABLE_NAME: table.tableName },
    });
    // Reads removals and the group's index partition; ungroups through TransactWriteItems (Update) and drops finished removals.
    grantTable(
      table,
      this.function,
      ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      [INDEX.byGroup.name],
    );
    new Schedule(this, 'Schedule', {
      description: 'Finishes the ungrouping of deleted asset groups',
      schedule: ScheduleExpression.rate(Duration.minutes(1)),
      // The next run is a minute away and resumes where this one stopped.
      target: new LambdaInvoke(this.function, { retryAttempts: 0 }),
    });
    const stack = Stack.of(this);
    const functionId = stack.resolve(stack.getLogicalId(this.function.node.defaultChild as CfnElement)) as string;
    Validations.of(stack).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
      reason:
        "The schedule's role may invoke the removal function's versions and aliases (qualified ARNs), and no other function.",
    });
  }
}
