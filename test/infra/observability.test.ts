import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../infra/routes.ts';
import { METRIC, METRICS_NAMESPACE } from '../../shared/metric-names.ts';
import { nagFindings, synthStack } from '../fixtures/stack.ts';

const prod = synthStack('prod', { alarmEmail: 'ops@example.com' });
const dev = synthStack('dev');

type Resource = { Type: string; Properties: Record<string, unknown> };
type Alarm = {
  AlarmDescription: string;
  MetricName?: string;
  Namespace?: string;
  ExtendedStatistic?: string;
  Dimensions?: { Name: string; Value: unknown }[];
  Metrics?: {
    Id: string;
    Expression?: string;
    MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } };
  }[];
  Threshold: number;
  TreatMissingData: string;
  AlarmActions: unknown[];
};
const alarms = Object.values(prod.findResources('AWS::CloudWatch::Alarm')).map(
  (alarm) => (alarm as Resource).Properties as unknown as Alarm,
);
const dimension = (alarm: { Dimensions?: { Name: string; Value: unknown }[] }, name: string) =>
  alarm.Dimensions?.find((d) => d.Name === name)?.Value;
const functionLogicalIds = Object.keys(prod.findResources('AWS::Lambda::Function'));
const serviceFunctions = functionLogicalIds.filter((id) => !id.startsWith('CustomS3AutoDeleteObjects'));
const policiesOf = (logicalIdPrefix: string) =>
  JSON.stringify(
    Object.values(prod.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify((policy as Resource).Properties.Roles).includes(logicalIdPrefix),
    ),
  );

describe('alarms', () => {
  it('alarms on the 5xx rate of every endpoint, from its own ServerErrors and Requests metrics', () => {
    const rates = alarms.filter((alarm) => alarm.Metrics?.some((m) => m.Expression?.includes('errors')));
    const routesOf = rates.map((alarm) => {
      const errors = alarm.Metrics?.find((m) => m.Id === 'errors')?.MetricStat?.Metric;
      expect(errors?.MetricName).toBe(METRIC.serverErrors);
      return dimension(errors ?? {}, 'route');
    });

    expect(routesOf.sort()).toEqual(ROUTES.map((route) => route.name).sort());
  });

  it('alarms on the p99 latency of every endpoint', () => {
    const p99 = alarms.filter((alarm) => alarm.MetricName === METRIC.latency);

    expect(p99.map((alarm) => alarm.ExtendedStatistic)).toEqual(ROUTES.map(() => 'p99'));
    expect(p99.map((alarm) => dimension(alarm, 'route')).sort()).toEqual(ROUTES.map((route) => route.name).sort());
    expect(p99.every((alarm) => alarm.Namespace === METRICS_NAMESPACE)).toBe(true);
  });

  it('alarms on Lambda errors and throttles of every function', () => {
    for (const metricName of ['Errors', 'Throttles']) {
      const watched = alarms
        .filter((alarm) => alarm.Namespace === 'AWS/Lambda' && alarm.MetricName === metricName)
        .map((alarm) => JSON.stringify(dimension(alarm, 'FunctionName')));

      expect(watched.sort()).toEqual(serviceFunctions.map((id) => JSON.stringify({ Ref: id })).sort());
    }
  });

  it('alarms as soon as the dead-letter queue holds a message', () => {
    const dlq = alarms.find((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible');

    expect(dlq).toMatchObject({ Namespace: 'AWS/SQS', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(JSON.stringify(dimension(dlq ?? {}, 'QueueName'))).toContain('DeadLetterQueue');
  });

  it('alarms on a failed list sync and on a list not synced for an hour, missing data counting as stale', () => {
    const syncErrors = alarms.find((alarm) => alarm.AlarmDescription.startsWith('List sync failed'));
    const stale = alarms.filter((alarm) => alarm.MetricName === METRIC.listEntries);

    expect(JSON.stringify(dimension(syncErrors ?? {}, 'FunctionName'))).toContain('CheckListsSync');
    expect(stale.map((alarm) => dimension(alarm, 'source'))).toEqual(['polkadot-phishing']);
    expect(stale[0]).toMatchObject({ Statistic: 'SampleCount', Period: 3600, TreatMissingData: 'breaching' });
  });

  it('alarms on DynamoDB read and write throttling of the table', () => {
    const throttles = alarms.find((alarm) =>
      alarm.Metrics?.some((m) => m.Expression === 'FILL(reads, 0) + FILL(writes, 0)'),
    );
    const metricNames = throttles?.Metrics?.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : []));

    expect(metricNames).toEqual(['ReadThrottleEvents', 'WriteThrottleEvents']);
  });

  it('notifies one TLS-only SNS topic from every alarm, with the e-mail address from the context', () => {
    const topics = Object.keys(prod.findResources('AWS::SNS::Topic'));

    expect(topics).toHaveLength(1);
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: topics[0] }]);
    prod.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    dev.resourceCountIs('AWS::SNS::Subscription', 0);
    prod.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('dashboard', () => {
  it('shows requests, 4xx, 5xx and latency per endpoint, and the check verdicts, timeouts and errors', () => {
    const dashboards = Object.values(prod.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify((dashboards[0] as Resource).Properties.DashboardBody);

    expect(dashboards).toHaveLength(1);
    for (const name of [METRIC.requests, METRIC.clientErrors, METRIC.serverErrors, METRIC.latency]) {
      expect(body).toContain(`\\"${name}\\"`);
    }
    for (const route of ROUTES) expect(body).toContain(`\\"route\\",\\"${route.name}\\"`);
    for (const name of [METRIC.verdicts, METRIC.sourceTimeouts, METRIC.sourceErrors]) {
      expect(body).toContain(`MetricName=\\\\\\"${name}\\\\\\"`);
    }
  });
});

describe('tracing and logs', () => {
  it('traces every function actively in prod and none in dev, where the context can switch it on', () => {
    const modes = (template: typeof prod) =>
      serviceFunctions.map(
        (id) => (template.toJSON().Resources[id].Properties.TracingConfig as { Mode?: string } | undefined)?.Mode,
      );

    expect(modes(prod)).toEqual(serviceFunctions.map(() => 'Active'));
    expect(modes(dev)).toEqual(serviceFunctions.map(() => undefined));
    expect(modes(synthStack('dev', { tracing: true }))).toEqual(serviceFunctions.map(() => 'Active'));
  });

  it('writes a JSON access log line per request from the API stage to a log group with a retention', () => {
    const stage = Object.values(prod.findResources('AWS::ApiGatewayV2::Stage'))[0] as Resource;
    const settings = stage.Properties.AccessLogSettings as {
      DestinationArn: { 'Fn::GetAtt': [string, string] };
      Format: string;
    };
    const format = JSON.parse(settings.Format) as Record<string, string>;

    expect(format).toMatchObject({
      requestId: '$context.requestId',
      route: '$context.routeKey',
      status: '$context.status',
      latencyMs: '$context.responseLatency',
      integrationError: '$context.integrationErrorMessage',
    });
    const logGroup = prod.toJSON().Resources[settings.DestinationArn['Fn::GetAtt'][0]];
    expect(logGroup).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      DeletionPolicy: 'Retain',
      Properties: { RetentionInDays: 90 },
    });
  });

  it('passes the log level and the service name to every function, and its route name to each route function', () => {
    for (const id of serviceFunctions) {
      expect(prod.toJSON().Resources[id].Properties.Environment.Variables).toMatchObject({
        LOG_LEVEL: 'INFO',
        SERVICE_NAME: 'asset-protection-prod',
      });
    }
    for (const route of ROUTES) {
      const id = serviceFunctions.find((logicalId) =>
        logicalId.startsWith(`${route.name.replaceAll('-', '')}Function`),
      );
      expect(prod.toJSON().Resources[id ?? ''].Properties.Environment.Variables.ROUTE_NAME).toBe(route.name);
    }
  });
});

describe('least privilege', () => {
  it('grants the cursor key set to the functions that page and to no other, and puts no key in any configuration', () => {
    const [secret] = Object.keys(prod.findResources('AWS::SecretsManager::Secret'));
    const readers = Object.values(prod.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy).includes(`"Ref":"${secret}"`),
    );
    const roles = readers.flatMap((policy) => (policy as Resource).Properties.Roles as { Ref: string }[]);
    const withArn = serviceFunctions.filter((id) =>
      JSON.stringify(prod.toJSON().Resources[id].Properties.Environment).includes('CURSOR_SECRET_ARN'),
    );

    expect(roles.map((role) => role.Ref.replace(/FunctionRole.*$/, ''))).toEqual(
      ROUTES.filter((route) => route.readsCursorKey).map((route) => route.name.replaceAll('-', '')),
    );
    expect(withArn.map((id) => id.replace(/Function.*$/, ''))).toEqual(
      ROUTES.filter((route) => route.readsCursorKey).map((route) => route.name.replaceAll('-', '')),
    );
    expect(withArn.length).toBe(5);
    expect(JSON.stringify(prod.toJSON())).not.toContain('resolve:secretsmanager');
  });

  it('attaches no managed policy to any role; each function writes only to its own log group', () => {
    const roles = Object.values(prod.findResources('AWS::IAM::Role')).filter(
      (role) => !JSON.stringify(role).includes('CustomS3AutoDeleteObjects'),
    );

    for (const role of roles) expect((role as Resource).Properties.ManagedPolicyArns).toBeUndefined();
    expect(policiesOf('listassetsFunctionRole')).toMatch(
      /"logs:CreateLogStream","logs:PutLogEvents"\],"Effect":"Allow","Resource":\{"Fn::GetAtt":\["listassetsFunctionLogs[0-9A-F]+","Arn"\]\}/,
    );
  });

  it('grants Scan to the verdict snapshot function only, and index access only to the functions that query an index', () => {
    const policies = prod.findResources('AWS::IAM::Policy');
    const scanning = Object.keys(policies).filter((id) => JSON.stringify(policies[id]).includes('dynamodb:Scan'));

    expect(scanning).toEqual([expect.stringMatching(/^VerdictSnapshotsSnapshotRoleDefaultPolicy/)]);
    expect(JSON.stringify(policies)).not.toContain('/index/*');
    expect(policiesOf('listassetsFunctionRole')).toContain('/index/liveByTypeGroup');
    expect(policiesOf('deleteassetgroupFunctionRole')).toContain('/index/liveByGroup');
    expect(policiesOf('listassetgroupsFunctionRole')).not.toContain('/index/');
    expect(policiesOf('checkassetFunctionRole')).not.toContain('/index/');
    expect(policiesOf('listthreatsFunctionRole')).toContain('/index/list4');
    expect(policiesOf('listtakedownsFunctionRole')).toContain('/index/list2');
    expect(policiesOf('searchassetFunctionRole')).toContain('/index/byAsset');
    expect(policiesOf('listverdictsFunctionRole')).toMatch(/\/index\/verdictsByMonth"\]/);
    expect(policiesOf('listverdictsFunctionRole').match(/\/index\//g)).toHaveLength(1);
  });

  it('lets the ingest function send to the dead-letter queue', () => {
    expect(policiesOf('ActivityIngestFunctionRole')).toContain('sqs:SendMessage');
  });
});

describe('cdk-nag AwsSolutions', () => {
  it.each(['dev', 'prod'])('reports no unacknowledged finding in %s', (stage) => {
    expect(nagFindings(stage)).toEqual([]);
  });
});
