import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseOrigins } from './cors.ts';
import { ServiceStack, StackSettingError } from './stack.ts';

const app = new App();
/** A context value as given with `-c name=value` (always a string) or in cdk.json. */
const context = (name: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(name);
  return value === undefined || value === '' ? undefined : String(value);
};
const flag = (name: string): boolean | undefined => {
  const value = context(name);
  return value === undefined ? undefined : value === 'true';
};
const rateLimit = context('throttleRateLimit');
const burstLimit = context('throttleBurstLimit');
const lists = context('checkLists');
const corsOrigins = context('corsOrigins');

const stage = context('stage') ?? 'dev';
try {
  new ServiceStack(app, `AssetProtection-${stage}`, {
    stage,
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    alarmEmail: context('alarmEmail'),
    alarmTopicArn: context('alarmTopicArn'),
    tableName: context('tableName'),
    tracing: flag('tracing'),
    blocklistExternalLists: flag('blocklistExternalLists'),
    logLevel: context('logLevel'),
    rateLimits: context('rateLimits'),
    keyGuessLimit: context('keyGuessLimit'),
    ...(context('reviewDailyLimit') === undefined ? {} : { reviewDailyLimit: Number(context('reviewDailyLimit')) }),
    reportUrlBase: context('reportUrlBase'),
    healthcheckThresholds: context('healthcheckThresholds'),
    ...(rateLimit && burstLimit ? { throttle: { rateLimit: Number(rateLimit), burstLimit: Number(burstLimit) } } : {}),
    ...(lists ? { checkLists: JSON.parse(lists) } : {}),
    ...(corsOrigins ? { corsOrigins: parseOrigins(corsOrigins) } : {}),
  });
} catch (error) {
  // A missing setting is one line naming it, not a stack trace.
  if (!(error instanceof StackSettingError)) throw error;
  console.error(error.message);
  process.exit(1);
}
// Synth (and so deploy) fails on any AwsSolutions finding that is not acknowledged with a reason.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
