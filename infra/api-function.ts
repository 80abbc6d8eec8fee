import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export const PROJECT_ROOT = new URL('..', import.meta.url).pathname;

export type ServiceFunctionProps = {
  /** Handler module, relative to the project root; it exports `handler`. */
  entry: string;
  environment?: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
};

/**
 * Every function of the service is built the same way: Node 24 on arm64, bundled by esbuild
 * (minified CJS, names kept so error classes survive, source maps enabled at runtime), with
 * its own log group kept for a month.
 */
export const serviceFunction = (scope: Construct, id: string, props: ServiceFunctionProps): NodejsFunction =>
  new NodejsFunction(scope, id, {
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
    environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
    logGroup: new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH }),
  });

export type ApiFunctionProps = ServiceFunctionProps & { table: ITable; access: 'read' | 'write' };

/** A route's function, granted read or read-write on the table and nothing wider. */
export class ApiFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    this.fn = serviceFunction(this, 'Function', {
      ...props,
      environment: { TABLE_NAME: props.table.tableName, ...props.environment },
    });
    if (props.access === 'write') props.table.grantReadWriteData(this.fn);
    else props.table.grantReadData(this.fn);
  }
}
