import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { AREAS, ROUTES } from '../../infra/routes.ts';
import { METRIC, METRICS_NAMESPACE } from '../../shared/metric-names.ts';
import { nagFindings, synthService } from '../fixtures/stack.ts';

const service = synthService('prod', { alarmEmail: 'ops@example.com' });
const prod = service.root;
const dev = synthService('dev').root;

type Resource = { Type: string; Properties: Record<string, unknown> };
type MetricStat = {
  Metric: { MetricName: string; Namespace?: string; Dimensions: { Name: string; Value: unknown }[] };
  Stat?: string;
};
type Alarm = {
  AlarmDescription: string;
  MetricName?: string;
  Namespace?: string;
  Statistic?: string;
  ExtendedStatistic?: string;
  Dimensions?: { Name: string; Value: unknown }[];
  Metrics?: { Id: string; Expression?: string; MetricStat?: MetricStat }[];
  Threshold: number;
  TreatMissingData: string;
  AlarmActions: unknown[];
};
const alarmsOf = (template: typeof prod) =>
  Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
    (alarm) => (alarm as Resource).Properties as unknown as Alarm,
  );
const alarms = alarmsOf(prod);
const allAlarms = service.all.flatMap(alarmsOf);
const dimension = (alarm: { Dimensions?: { Name: string; Value: unknown }[] }, name: string) =>
  alarm.Dimensions?.find((d) => d.Name === name)?.Value;
const allFunctions = service.all.flatMap(
  (template) => Object.entries(template.findResources('AWS::Lambda::Function')) as [string, Resource][],
);
const serviceFunctions = allFunctions.filter(([id]) => !id.startsWith('CustomS3AutoDeleteObjects'));
const policiesOf = (logicalIdPrefix: string) =>
  JSON.stringify(
    service.all.flatMap((template) =>
      Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
        JSON.stringify((policy as Resource).Properties.Roles).includes(logicalIdPrefix),
      ),
    ),
  );
const deployedAreas = AREAS.filter((area) => ROUTES.some((route) => route.area === area));
const areaOf = (alarm: Alarm) =>
  alarm.Metrics?.flatMap((m) => (m.MetricStat ? [dimension(m.MetricStat.Metric, 'area')] : []))[0] ??
  dimension(alarm, 'area');

describe('alarms', () => {
  it('alarms on the 5xx rate, the p99 latency and the 429 rate of every area, from the figures its functions publish per area', () => {
    const rate = (metricName: string) =>
      allAlarms
        .filter((alarm) =>
          alarm.Metrics?.some((m) => m.Id === 'part' && m.MetricStat?.Metric.MetricName === metricName),
        )
        .map(areaOf);
    const p99 = allAlarms.filter((alarm) => alarm.MetricName === METRIC.latency);

    expect(rate(METRIC.serverErrors).sort()).toEqual([...deployedAreas].sort());
    expect(rate(METRIC.rateLimited).sort()).toEqual([...deployedAreas].sort());
    expect(p99.map((alarm) => alarm.ExtendedStatistic)).toEqual(deployedAreas.map(() => 'p99'));
    expect(p99.map(areaOf).sort()).toEqual([...deployedAreas].sort());
    expect(p99.every((alarm) => alarm.Namespace === METRICS_NAMESPACE)).toBe(true);
  });

  it("alarms on the API's own 5xx rate over both stages, which counts functions that crashed or timed out", () => {
    const api = alarms.find((alarm) => alarm.AlarmDescription.includes("API's responses are 5xx"));
    const stats = api?.Metrics?.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : [])) ?? [];

    expect(stats.map((metric) => `${metric.MetricName}@${dimension(metric, 'Stage')}`).sort()).toEqual([
      '5xx@$default',
      '5xx@api',
      'Count@$default',
      'Count@api',
    ]);
  });

  it('alarms on the errors of every function that is not a route, and on Lambda throttles in the account', () => {
    const errors = alarms.filter((alarm) => alarm.Namespace === 'AWS/Lambda' && alarm.MetricName === 'Errors');
    const throttles = alarms.filter((alarm) => alarm.Namespace === 'AWS/Lambda' && alarm.MetricName === 'Throttles');

    expect(errors.map((alarm) => JSON.stringify(dimension(alarm, 'FunctionName'))).sort()).toEqual(
      Object.keys(prod.findResources('AWS::Lambda::Function'))
        .filter((id) => !id.startsWith('CustomS3AutoDeleteObjects'))
        .map((id) => JSON.stringify({ Ref: id }))
        .sort(),
    );
    expect(throttles).toHaveLength(1);
    expect(throttles[0]?.Dimensions).toBeUndefined();
  });

  it('keeps the number of alarms constant per area, whatever the number of routes', () => {
    const perArea = Object.values(service.areas).map((template) => alarmsOf(template).length);

    expect(Math.max(...perArea)).toBeLessThanOrEqual(5);
  });

  it('alarms as soon as the dead-letter queue holds a message, and when an activity change waits 10 minutes', () => {
    const dlq = alarms.find((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible');
    const age = alarms.find((alarm) => alarm.MetricName === 'ApproximateAgeOfOldestMessage');

    expect(dlq).toMatchObject({ Namespace: 'AWS/SQS', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(JSON.stringify(dimension(dlq ?? {}, 'QueueName'))).toContain('DeadLetterQueue');
    expect(age).toMatchObject({ Namespace: 'AWS/SQS', Threshold: 600 });
    expect(JSON.stringify(dimension(age ?? {}, 'QueueName'))).toMatch(/ActivityIngestQueue/);
  });

  it('alarms on a failed list sync and on a list not synced for an hour, missing data counting as stale', () => {
    const syncErrors = alarms.find((alarm) => alarm.AlarmDescription.startsWith('List sync failed'));
    const stale = alarms.filter((alarm) => alarm.MetricName === METRIC.listEntries);

    expect(JSON.stringify(dimension(syncErrors ?? {}, 'FunctionName'))).toContain('CheckListsSync');
    expect(stale.map((alarm) => dimension(alarm, 'source'))).toEqual(['polkadot-phishing']);
    expect(stale[0]).toMatchObject({ Statistic: 'SampleCount', Period: 3600, TreatMissingData: 'breaching' });
  });

  it('alarms when no verdict snapshot was stored for an hour, missing data counting as stale', () => {
    const stale = alarms.find((alarm) => alarm.MetricName === METRIC.snapshotsStored);

    expect(stale).toMatchObject({
      Statistic: 'SampleCount',
      Period: 3600,
      TreatMissingData: 'breaching',
      Threshold: 1,
    });
  });

  it('alarms when a verdict replica of a route that keeps one falls a minute behind the log', () => {
    const replicas = allAlarms.filter((alarm) => alarm.MetricName === METRIC.replicaAge);

    expect(replicas.map((alarm) => dimension(alarm, 'route')).sort()).toEqual(
      ROUTES.filter((route) => route.readsVerdicts)
        .map((route) => route.name)
        .sort(),
    );
    expect(replicas.every((alarm) => alarm.Threshold === 60 && alarm.Statistic === 'Maximum')).toBe(true);
  });

  it('alarms on sustained transaction conflicts and on requests API Gateway throttled', () => {
    const conflicts = alarms.find((alarm) => alarm.MetricName === METRIC.transactionConflicts);
    const throttled = alarms.find((alarm) => alarm.MetricName === 'GatewayThrottled');

    expect(conflicts).toMatchObject({ Statistic: 'Sum', Threshold: 100, EvaluationPeriods: 3 });
    expect(throttled).toMatchObject({ Namespace: METRICS_NAMESPACE, Threshold: 0 });
    prod.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ ($.status = "429") && ($.integrationStatus = "-") }',
      MetricTransformations: [Match.objectLike({ MetricName: 'GatewayThrottled', MetricValue: '1' })],
    });
  });

  it('alarms on requests API Gateway throttled under the service dimension their metric filter publishes them with', () => {
    const throttled = alarms.find((alarm) => alarm.MetricName === 'GatewayThrottled');

    expect(throttled?.Dimensions).toEqual([{ Name: 'service', Value: 'asset-protection-prod' }]);
    prod.hasResourceProperties('AWS::Logs::MetricFilter', {
      MetricTransformations: [
        Match.objectLike({ MetricName: 'GatewayThrottled', Dimensions: [{ Key: 'service', Value: '$.service' }] }),
      ],
    });
  });

  it('alarms on DynamoDB read and write throttling of the table', () => {
    const throttles = alarms.find((alarm) =>
      alarm.Metrics?.some((m) => m.Expression === 'FILL(reads, 0) + FILL(writes, 0)'),
    );
    const metricNames = throttles?.Metrics?.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : []));

    expect(metricNames).toEqual(['ReadThrottleEvents', 'WriteThrottleEvents']);
  });

  it('notifies one TLS-only SNS topic from every alarm of every stack, with the e-mail address from the context', () => {
    const topics = Object.keys(prod.findResources('AWS::SNS::Topic'));

    expect(topics).toHaveLength(1);
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: topics[0] }]);
    for (const alarm of allAlarms) expect(JSON.stringify(alarm.AlarmActions)).toMatch(/AlarmTopic/);
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
  it('shows requests, 4xx, 5xx and latency per endpoint by search (a constant size), and the check verdicts, timeouts and errors', () => {
    const dashboards = Object.values(prod.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify((dashboards[0] as Resource).Properties.DashboardBody);

    expect(dashboards).toHaveLength(1);
    for (const name of [
      METRIC.requests,
      METRIC.clientErrors,
      METRIC.serverErrors,
      METRIC.latency,
      METRIC.verdicts,
      METRIC.sourceTimeouts,
      METRIC.sourceErrors,
      METRIC.replicaAge,
    ]) {
      expect(body).toContain(`MetricName=\\\\\\"${name}\\\\\\"`);
    }
    for (const route of ROUTES) expect(body).not.toContain(route.name);
  });
});

describe('tracing and logs', () => {
  const modes = (templates: typeof service) =>
    Object.fromEntries(
      templates.all.flatMap((template) =>
        Object.entries(template.findResources('AWS::Lambda::Function'))
          .filter(([id]) => !id.startsWith('CustomS3AutoDeleteObjects'))
          .map(([id, fn]) => [id, ((fn as Resource).Properties.TracingConfig as { Mode?: string } | undefined)?.Mode]),
      ),
    );
  const untraced = ROUTES.filter((route) => route.untraced).map((route) => route.name.replaceAll('-', ''));
  const isUntraced = (id: string) => untraced.some((name) => id.startsWith(`${name}Function`));

  it('traces every function actively in prod but the per-URL check routes, traced only when sampled upstream; none in dev', () => {
    const inProd = Object.entries(modes(service));

    expect(untraced).toEqual(['checkasset', 'getblocklistversion']);
    for (const [id, mode] of inProd) expect(mode, id).toBe(isUntraced(id) ? 'PassThrough' : 'Active');
    for (const [id, mode] of Object.entries(modes(synthService('dev')))) expect(mode, id).toBeUndefined();
    for (const [id, mode] of Object.entries(modes(synthService('dev', { tracing: true })))) {
      expect(mode, id).toBe(isUntraced(id) ? 'PassThrough' : 'Active');
    }
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

  it('writes the stage in each access line and a constant service field, the dimension of the throttled count', () => {
    const stage = Object.values(prod.findResources('AWS::ApiGatewayV2::Stage'))[0] as Resource;
    const format = JSON.parse((stage.Properties.AccessLogSettings as { Format: string }).Format) as Record<
      string,
      string
    >;

    expect(format).toMatchObject({ stage: '$context.stage', service: 'asset-protection-prod' });
  });

  it('passes the log level and the service name to every function, and its route and area to each route function', () => {
    for (const [id, fn] of serviceFunctions) {
      expect((fn.Properties.Environment as { Variables: unknown }).Variables, id).toMatchObject({
        LOG_LEVEL: 'INFO',
        SERVICE_NAME: 'asset-protection-prod',
      });
    }
    for (const route of ROUTES) {
      const [, fn] = serviceFunctions.find(([id]) => id.startsWith(`${route.name.replaceAll('-', '')}Function`)) ?? [];
      expect((fn?.Properties.Environment as { Variables: unknown } | undefined)?.Variables).toMatchObject({
        ROUTE_NAME: route.name,
        ROUTE_AREA: route.area,
      });
    }
  });
});

describe('least privilege', () => {
  it('grants the cursor key set to the functions that page and to no other, and puts no key in any configuration', () => {
    const readers = service.all.flatMap((template) =>
      Object.values(template.findResources('AWS::IAM::Policy')).filter(
        (policy) =>
          JSON.stringify(policy).includes('secretsmanager:GetSecretValue') &&
          JSON.stringify(policy).includes('CursorSecret'),
      ),
    );
    const roles = readers.flatMap((policy) => (policy as Resource).Properties.Roles as { Ref: string }[]);
    const withArn = serviceFunctions.filter(([, fn]) =>
      JSON.stringify(fn.Properties.Environment).includes('CURSOR_SECRET_ARN'),
    );
    const pagers = ROUTES.filter((route) => route.readsCursorKey).map((route) => route.name.replaceAll('-', ''));

    expect(roles.map((role) => role.Ref.replace(/FunctionRole.*$/, '')).sort()).toEqual([...pagers].sort());
    expect(withArn.map(([id]) => id.replace(/Function.*$/, '')).sort()).toEqual([...pagers].sort());
    expect(withArn.length).toBe(8);
    expect(JSON.stringify(service.all.map((template) => template.toJSON()))).not.toContain('resolve:secretsmanager');
  });

  it('attaches no managed policy to any role; each function writes only to its own log group', () => {
    const roles = service.all.flatMap((template) =>
      Object.values(template.findResources('AWS::IAM::Role')).filter(
        (role) => !JSON.stringify(role).includes('CustomS3AutoDeleteObjects'),
      ),
    );

    for (const role of roles) expect((role as Resource).Properties.ManagedPolicyArns).toBeUndefined();
    expect(policiesOf('listassetsFunctionRole')).toMatch(
      /"logs:CreateLogStream","logs:PutLogEvents"\],"Effect":"Allow","Resource":\{"Fn::GetAtt":\["listassetsFunctionLogs[0-9A-F]+","Arn"\]\}/,
    );
  });

  it('grants Scan to no function, and index access only to the functions that query an index', () => {
    const scanning = service.all.flatMap((template) => {
      const policies = template.findResources('AWS::IAM::Policy');
      return Object.keys(policies).filter((id) => JSON.stringify(policies[id]).includes('dynamodb:Scan'));
    });

    expect(scanning).toEqual([]);
    expect(policiesOf('')).not.toContain('/index/*');
    expect(policiesOf('listassetsFunctionRole')).toContain('/index/liveByTypeGroup');
    expect(policiesOf('deleteassetgroupFunctionRole')).toContain('/index/liveByGroup');
    expect(policiesOf('listassetgroupsFunctionRole')).not.toContain('/index/');
    expect(policiesOf('checkassetFunctionRole')).not.toContain('/index/');
    expect(policiesOf('listthreatsFunctionRole')).toContain('/index/list4');
    expect(policiesOf('listtakedownsFunctionRole')).toContain('/index/list2');
    expect(policiesOf('searchassetFunctionRole')).toContain('/index/byAsset');
    expect(policiesOf('listverdictsFunctionRole')).toMatch(/\/index\/verdictsByMonth"\]/);
    expect(policiesOf('listverdictsFunctionRole').match(/\/index\//g)).toHaveLength(1);
    expect(policiesOf('VerdictSnapshotsSnapshotRole')).toMatch(/\/index\/checkEntries"\]/);
    expect(policiesOf('VerdictSnapshotsSnapshotRole').match(/\/index\//g)).toHaveLength(1);
  });

  it('lets the ingest function send to the dead-letter queue', () => {
    expect(policiesOf('ActivityIngestFunctionRole')).toContain('sqs:SendMessage');
  });
});

describe('cdk-nag AwsSolutions', () => {
  it.each(['dev', 'prod'])('reports no unacknowledged finding in %s', (stage) => {
    expect(nagFindings(stage)).toEqual([]);
  });

  it('names as public exactly the routes that answer without a key, in the acknowledgement of the pages area only', () => {
    const apig4 = (id: string) =>
      service.stack.node
        .findAll()
        .filter((construct) => construct.node.id === id)
        .flatMap((construct) => construct.node.metadata)
        .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
        .filter(([rule]) => rule.includes('APIG4'))
        .map(([, reason]) => reason);
    const [pages] = apig4('PagesRoutes');
    const [lifecycle] = apig4('LifecycleRoutes');

    for (const route of ROUTES) {
      expect(pages?.includes(`${route.method} ${route.path}`), route.name).toBe(route.public === true);
    }
    expect(lifecycle).not.toContain('Public');
    expect(JSON.stringify([...apig4('PagesRoutes'), ...apig4('InsightsRoutes')])).not.toContain(
      'getOrganizationMetrics',
    );
  });
});
