import { spawnSync } from 'node:child_process';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OPERATOR_PARTITIONS, WRITE_ACTIONS } from '../../infra/api-function.ts';
import { MAX_ROUTES_PER_AREA } from '../../infra/route-area.ts';
import { AREAS, ROUTES, type Route } from '../../infra/routes.ts';
import { StackSettingError } from '../../infra/stack.ts';
import { TABLE_DEFINITION } from '../../infra/table-definition.ts';
import { synthService } from '../fixtures/stack.ts';

const prod = synthService('prod');
const dev = synthService('dev');

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };
const resources = (templates: readonly Template[], type: string) =>
  templates.flatMap((template) => Object.entries(template.findResources(type)) as [string, Resource][]);
const count = (template: Template) => Object.keys(template.toJSON().Resources ?? {}).length;
const routeId = (route: Route) => route.name.replaceAll('-', '');
const policyOf = (templates: readonly Template[], route: Route) =>
  resources(templates, 'AWS::IAM::Policy').find(([id]) => id.startsWith(`${routeId(route)}FunctionRole`))?.[1];

/**
 * The route table padded to 120 routes, the heaviest kind (a write route that pages with the cursor key
 * and queries an index): one area filled to its limit, the rest spread over every area.
 */
const paddedRoutes = (): Route[] => {
  const routes = [...ROUTES];
  const template = ROUTES.find((route) => route.name === 'list-reports') as Route;
  const add = (area: Route['area']) => {
    const n = routes.length;
    routes.push({
      ...template,
      area,
      method: 'POST',
      path: `/padding/${n}`,
      name: `padding-${n}`,
      access: 'write',
      writes: ['ORG#*'],
    });
  };
  // The lifecycle area as full as 120 routes in all allow (full, while the route table is small enough).
  while (routes.filter((route) => route.area === 'lifecycle').length < MAX_ROUTES_PER_AREA && routes.length < 120)
    add('lifecycle');
  const others = AREAS.filter((area) => area !== 'lifecycle');
  for (let i = 0; routes.length < 120; i++) add(others[i % others.length] as Route['area']);
  return routes;
};

describe('the CDK stacks', () => {
  it('serves every route-table entry under /v2 from its area stack, each integrated with its own function', () => {
    const routes = resources(prod.all, 'AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties.RouteKey);
    const integrations = resources(prod.all, 'AWS::ApiGatewayV2::Integration');

    expect(routes.sort()).toEqual(
      ROUTES.map(
        (route) => `${route.method} ${route.root ? route.path.replace(/\/$/, '') : `/v2${route.path}`}`,
      ).sort(),
    );
    expect(integrations).toHaveLength(ROUTES.length);
    for (const route of ROUTES) {
      const area = prod.areas[`${route.area.charAt(0).toUpperCase()}${route.area.slice(1)}Routes`];
      expect(area, route.area).toBeDefined();
      area?.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: `${route.method} ${route.root ? route.path.replace(/\/$/, '') : `/v2${route.path}`}`,
      });
    }
  });

  it('serves the /api/v2 alias as a second stage of the same API, at no cost per route', () => {
    const stages = resources([prod.root], 'AWS::ApiGatewayV2::Stage').map(([, stage]) => stage.Properties);

    expect(stages.map((stage) => stage.StageName).sort()).toEqual(['$default', 'api']);
    expect(new Set(stages.map((stage) => JSON.stringify(stage.ApiId))).size).toBe(1);
  });

  it('keeps every stack at or under 400 resources with the route table padded to 120 routes', () => {
    const padded = synthService('prod', { routes: paddedRoutes() });
    const counts = Object.fromEntries([
      ['root', count(padded.root)],
      ...Object.entries(padded.areas).map(([id, t]) => [id, count(t)]),
    ]);

    expect(resources(padded.all, 'AWS::ApiGatewayV2::Route')).toHaveLength(120);
    for (const [stack, resourceCount] of Object.entries(counts)) expect(resourceCount, stack).toBeLessThanOrEqual(400);
  });

  it('refuses an area of more routes than a stack holds, naming the area', () => {
    const lifecycle = ROUTES.filter((route) => route.area === 'lifecycle').length;
    const crowded = [
      ...ROUTES,
      ...Array.from({ length: MAX_ROUTES_PER_AREA + 1 - lifecycle }, (_, i) => ({
        ...(ROUTES[0] as Route),
        area: 'lifecycle' as const,
        path: `/one-more/${i}`,
        name: `one-more-${i}`,
      })),
    ];

    expect(() => synthService('prod', { routes: crowded })).toThrow(
      `Area lifecycle has ${MAX_ROUTES_PER_AREA + 1} routes; an area holds at most ${MAX_ROUTES_PER_AREA}`,
    );
  });

  it('answers CORS preflights for any origin with the key, authorization and content-type headers', () => {
    prod.root.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['*'],
        AllowHeaders: ['X-API-KEY', 'Authorization', 'Content-Type'],
        AllowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
        ExposeHeaders: [
          'Deprecation',
          'Link',
          'Retry-After',
          'RateLimit-Limit',
          'RateLimit-Remaining',
          'RateLimit-Reset',
        ],
        MaxAge: 600,
      },
    });
  });

  it("runs every function on Node 24, arm64, with JSON logs that leave out Lambda's own per-request lines", () => {
    const functions = resources(prod.all, 'AWS::Lambda::Function').filter(
      ([id]) => !id.startsWith('CustomS3AutoDeleteObjects'),
    );

    expect(functions.filter(([id]) => ROUTES.some((route) => id.startsWith(`${routeId(route)}Function`)))).toHaveLength(
      ROUTES.length,
    );
    for (const [, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        SystemLogLevel: 'WARN',
        ApplicationLogLevel: 'INFO',
      });
      expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain('--enable-source-maps');
    }
  });

  it('defines the table with the shared keys and live-asset indexes, on demand, with PITR', () => {
    prod.root.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
      GlobalSecondaryIndexes: TABLE_DEFINITION.indexes.map((index) =>
        Match.objectLike({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ),
    });
  });

  it('protects and retains the table outside dev stages, and lets dev stages delete it', () => {
    prod.root.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    dev.root.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });

  it('uses an existing table (one restored from a backup) instead of its own when given its name', () => {
    const restored = synthService('prod', { tableName: 'asset-protection-restored' });
    const tableNames = resources(restored.all, 'AWS::Lambda::Function').flatMap(([, fn]) => {
      const variables = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
      return variables?.TABLE_NAME === undefined ? [] : [JSON.stringify(variables.TABLE_NAME)];
    });

    restored.root.resourceCountIs('AWS::DynamoDB::Table', 0);
    expect(tableNames.length).toBeGreaterThan(0);
    for (const name of tableNames) expect(name).toMatch(/asset-protection-restored|referenceto/);
    expect(JSON.stringify(restored.root.toJSON())).toContain('table/asset-protection-restored');
  });

  it('throttles both stages', () => {
    for (const stageName of ['$default', 'api']) {
      prod.root.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: stageName,
        DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 }),
      });
    }
  });
});

describe('an alarm destination', () => {
  it('is required outside dev stages: the stack refuses to build without one, naming both settings', () => {
    const build = () => synthService('prod', { alarmEmail: undefined, alarmTopicArn: undefined });

    expect(build).toThrow(StackSettingError);
    expect(build).toThrow(
      'Stage prod has no alarm destination: set -c alarmEmail=<address> or -c alarmTopicArn=<SNS topic ARN>',
    );
  });

  it('may be an existing topic, which every alarm then notifies instead of a topic of the stack', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:on-call';
    const withTopic = synthService('prod', { alarmTopicArn: arn });
    const actions = resources(withTopic.all, 'AWS::CloudWatch::Alarm').map(
      ([, alarm]) => alarm.Properties.AlarmActions,
    );

    withTopic.root.resourceCountIs('AWS::SNS::Topic', 0);
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) expect(JSON.stringify(action)).toMatch(/on-call|referenceto/);
  });

  it('stops `cdk synth` of a prod stage without one with that single line', () => {
    const run = spawnSync('npx', ['tsx', 'infra/app.ts'], {
      encoding: 'utf8',
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ stage: 'prod' }), CDK_OUTDIR: '/tmp/no-synth' },
    });

    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'Stage prod has no alarm destination: set -c alarmEmail=<address> or -c alarmTopicArn=<SNS topic ARN>',
    ]);
  });
});

describe('least privilege', () => {
  it('grants no IAM statement on the "*" resource except the X-Ray actions, which have no resource type', () => {
    const statements = resources(prod.all, 'AWS::IAM::Policy').flatMap(
      ([, policy]) =>
        (policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }).Statement,
    );
    const onEverything = statements.filter((statement) => [statement.Resource].flat().includes('*'));

    expect(statements.length).toBeGreaterThan(0);
    expect(new Set(onEverything.flatMap((statement) => [statement.Action].flat()))).toEqual(
      new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
    );
  });

  it('gives read-only routes no write permission on the table', () => {
    for (const route of ROUTES.filter((candidate) => candidate.access === 'read')) {
      const policy = policyOf(prod.all, route);
      expect(policy, route.name).toBeDefined();
      const allowed = (
        (policy?.Properties.PolicyDocument ?? { Statement: [] }) as { Statement: { Effect: string; Action: unknown }[] }
      ).Statement.filter((statement) => statement.Effect === 'Allow');
      for (const action of [
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
      ]) {
        expect(JSON.stringify(allowed), route.name).not.toContain(action);
      }
    }
  });

  it('gives the functions of routes without table access no table name and no table permission', () => {
    const tableless = ROUTES.filter((route) => route.access === 'none');
    const functions = resources(prod.all, 'AWS::Lambda::Function');

    expect(tableless.length).toBeGreaterThan(0);
    for (const route of tableless) {
      const fn = functions.find(([id]) => id.startsWith(`${routeId(route)}Function`))?.[1];
      expect(JSON.stringify(policyOf(prod.all, route)?.Properties.PolicyDocument ?? {}), route.name).not.toContain(
        'dynamodb:',
      );
      expect(JSON.stringify(fn?.Properties.Environment), route.name).not.toContain('TABLE_NAME');
    }
  });

  type Statement = { Effect: string; Action: string | string[]; Condition?: Record<string, Record<string, string[]>> };
  const statementsOf = (policy: Resource) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
  const actions = (statement: Statement) => [statement.Action].flat();
  const writes = (statement: Statement) => actions(statement).some((action) => WRITE_ACTIONS.includes(action));
  /** IAM's StringLike: `*` any run of characters, `?` one. */
  const matches = (pattern: string, key: string) =>
    new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '.*')
        .replaceAll('?', '.')}$`,
    ).test(key);
  const operatorKeys = ['KEY#3f2a', 'USER#u-1', 'ORGANIZATION#acme'];
  const tablePolicies = resources(prod.all, 'AWS::IAM::Policy').filter(([, policy]) =>
    JSON.stringify(policy).includes('dynamodb:'),
  );

  it('lets no role write an API key, a user or an organization, and every role with table access is denied them explicitly', () => {
    expect(tablePolicies.length).toBeGreaterThan(20);
    for (const [id, policy] of tablePolicies) {
      for (const statement of statementsOf(policy).filter(
        (candidate) => candidate.Effect === 'Allow' && writes(candidate),
      )) {
        const partitions = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        expect(partitions, `${id} writes without a partition condition`).toBeDefined();
        for (const key of operatorKeys) {
          expect(
            partitions?.filter((pattern) => matches(pattern, key)),
            `${id} may write ${key}`,
          ).toEqual([]);
        }
      }
      const denied = statementsOf(policy).find((statement) => statement.Effect === 'Deny' && writes(statement));
      expect(denied?.Condition?.['ForAnyValue:StringLike']?.['dynamodb:LeadingKeys'], id).toEqual([
        ...OPERATOR_PARTITIONS,
      ]);
    }
  });

  it('grants each write route exactly the partitions its route-table entry declares', () => {
    for (const route of ROUTES.filter((candidate) => candidate.access === 'write')) {
      const allowed = statementsOf(policyOf(prod.all, route) as Resource).filter(
        (statement) => statement.Effect === 'Allow' && writes(statement),
      );
      const granted = allowed.flatMap(
        (statement) => statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? [],
      );
      expect([...granted].sort(), route.name).toEqual([...(route.writes ?? [])].sort());
    }
  });

  it('checks partition patterns as IAM does', () => {
    expect(matches('ORG#*', 'ORG#acme')).toBe(true);
    expect(matches('ORG#*', 'ORGANIZATION#acme')).toBe(false);
    expect(matches('GROUP_REMOVAL', 'GROUP_REMOVAL')).toBe(true);
    expect(matches('KEY#*', 'KEY#3f2a')).toBe(true);
  });
});

describe('the stage rate limits', () => {
  const environmentOf = (fn: Resource) =>
    (fn.Properties.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {};

  it('passes the rateLimits setting to every route function as RATE_LIMITS, and leaves it unset by default', () => {
    const limited = synthService('dev', { rateLimits: 'check=50/100,report=1/5' });
    const routeFunctions = (templates: readonly Template[]) =>
      resources(templates, 'AWS::Lambda::Function').filter(([, fn]) => environmentOf(fn).ROUTE_NAME !== undefined);

    expect(routeFunctions(limited.all)).toHaveLength(ROUTES.length);
    for (const [id, fn] of routeFunctions(limited.all)) {
      expect(environmentOf(fn).RATE_LIMITS, id).toBe('check=50/100,report=1/5');
    }
    for (const [id, fn] of routeFunctions(dev.all)) expect(environmentOf(fn).RATE_LIMITS, id).toBeUndefined();
  });

  it('refuses a malformed setting at synth, naming it', () => {
    expect(() => synthService('dev', { rateLimits: 'check=fast' })).toThrow(StackSettingError);
    expect(() => synthService('dev', { rateLimits: 'check=fast' })).toThrow(
      /^-c rateLimits: RATE_LIMITS: "check=fast"/,
    );
  });
});

describe('the stage review budget', () => {
  const environmentOf = (fn: Resource) =>
    (fn.Properties.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {};

  it('passes reviewDailyLimit to the review function as REVIEW_DAILY_LIMIT, and refuses one that is not a whole number', () => {
    const limited = synthService('dev', { reviewDailyLimit: 0 });
    const review = resources(limited.all, 'AWS::Lambda::Function').find(
      ([, fn]) => environmentOf(fn).ROUTE_NAME === 'review-proposal',
    );

    expect(review && environmentOf(review[1]).REVIEW_DAILY_LIMIT).toBe('0');
    expect(() => synthService('dev', { reviewDailyLimit: 2.5 })).toThrow(
      /^-c reviewDailyLimit: must be a whole number of at least 0, got 2.5$/,
    );
  });
});
