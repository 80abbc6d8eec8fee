import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export type ApiFunctionProps = {
  /** Handler module, relative to the project root. */
  entry: string;
  table: ITable;
  access: 'read' | 'write';
  environment?: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
  logRetention?: RetentionDays;
};

export const PROJECT_ROOT = new URL('..', import.meta.url).pathname;

/** Every function of the service: Node 24 on arm64, bundled by esbuild, table access granted no wider than needed. */
export class ApiFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    this.fn = new NodejsFunction(this, 'Function', {
      entry: `${PROJECT_ROOT}${props.entry}`,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      bundling: {
        minify: true,
        sourceMap: true,
        keepNames: true,
        format: OutputFormat.CJS,
        target: 'node24',
        bundleAwsSDK: true,
      },
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        TABLE_NAME: props.table.tableName,
        ...props.environment,
      },
      logGroup: new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.ONE_MONTH }),
    });
    if (props.access === 'write') props.table.grantReadWriteData(this.fn);
    else props.table.grantReadData(this.fn);
  }
}
