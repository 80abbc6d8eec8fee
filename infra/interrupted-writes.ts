import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { ACTIVITY_INDEX, INDEX } from '../shared/db/keys.ts';
import { type FunctionSettings, grantWorkerTable, serviceFunction } from './api-function.ts';
import { WORKERS } from './routes.ts';
import { everyMinute } from './scheduled-job.ts';

export type InterruptedWritesProps = { table: ITable; settings: FunctionSettings };

/**
 * Finishes or undoes the multi-step writes their requests left unfinished: a group delete ungroups
 * what it can in a bounded time and records the rest, and a report of more than 49 assets can be
 * abandoned between two of its transactions. This function, run every minute, ungroups the rest
 * in exact steps and rolls the abandoned reports back. A run is given a minute, so two runs rarely
 * overlap (and overlapping runs are harmless: every step is conditional).
 */
export class InterruptedWrites extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, { table, settings }: InterruptedWritesProps) {
    super(scope, id);
    this.function = serviceFunction(this, 'Function', {
      entry: WORKERS['resume-interrupted-writes'],
      memorySize: 256,
      timeout: Duration.minutes(1),
      settings,
      environment: { TABLE_NAME: table.tableName },
    });
    // Group removals: reads them and the group's index partition, ungroups through TransactWriteItems (Update), drops finished
    // removals. Reports: reads the incomplete ones' partition of `list1`, the report and its proposals, and withdraws them in
    // transactions (Put, counter Updates, claim Deletes, the verdict log's conditions and reads).
    grantWorkerTable(table, this.function, 'resume-interrupted-writes', [
      INDEX.byGroup.name,
      ACTIVITY_INDEX.list1.name,
    ]);
    everyMinute(
      this,
      'Schedule',
      this.function,
      'Finishes the ungrouping of deleted asset groups and rolls back abandoned reports',
    );
  }
}
