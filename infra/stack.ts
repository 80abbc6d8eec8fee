import { CfnOutput, RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ActivityIngest } from './activity-ingest.ts';
import { ApiFunction } from './api-function.ts';
import { CheckLists, type CheckListsProps } from './check-lists.ts';
import { BASE_PATH, ROUTES } from './routes.ts';
import { TABLE_DEFINITION } from './table-definition.ts';

export type ServiceStackProps = StackProps & {
  /** `dev` stages may be torn down with their data; any other stage keeps the table. */
  stage: string;
  throttle?: { rateLimit: number; burstLimit: number };
  /** External list URLs for the asset check, by source (default: polkadot-phishing's public list). */
  checkLists?: CheckListsProps['lists'];
};

export const isDevStage = (stage: string) => stage === 'dev' || stage.startsWith('dev-');

export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const dev = isDevStage(props.stage);

    const table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_DEFINITION.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_DEFINITION.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: !dev,
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      timeToLiveAttribute: TABLE_DEFINITION.timeToLiveAttribute,
    });
    for (const index of TABLE_DEFINITION.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }

    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'Derives the key that encrypts next_page cursors',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });

    const api = new HttpApi(this, 'Api', { createDefaultStage: false });
    new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 1000, burstLimit: 2000 },
    });

    const lists = new CheckLists(this, 'CheckLists', {
      removalPolicy: dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      ...(props.checkLists ? { lists: props.checkLists } : {}),
    });

    for (const route of ROUTES) {
      const { fn } = new ApiFunction(this, route.name, {
        entry: route.entry,
        table,
        access: route.access,
        memorySize: route.memorySize,
        environment: {
          // Resolved by CloudFormation at deploy time; the value never appears in the template.
          CURSOR_SECRET: SecretValue.secretsManager(cursorSecret.secretArn).unsafeUnwrap(),
          ...(route.readsCheckLists ? { LISTS_BUCKET: lists.bucket.bucketName } : {}),
        },
      });
      if (route.readsCheckLists) lists.grantReadLists(fn);
      api.addRoutes({
        path: `${BASE_PATH}${route.path}`,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${route.name}-integration`, fn),
      });
    }

    const ingest = new ActivityIngest(this, 'ActivityIngest', { table });

    new CfnOutput(this, 'ApiUrl', { value: `${api.apiEndpoint}${BASE_PATH}` });
    new CfnOutput(this, 'ActivityQueueUrl', { value: ingest.queue.queueUrl });
    new CfnOutput(this, 'ActivityDeadLetterQueueUrl', { value: ingest.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'TableName', { value: table.tableName });
  }
}
