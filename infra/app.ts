import { App } from 'aws-cdk-lib';
import { ServiceStack } from './stack.ts';

const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
new ServiceStack(app, `AssetProtection-${stage}`, {
  stage,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
