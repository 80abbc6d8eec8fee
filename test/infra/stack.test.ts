import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../infra/routes.ts';
import { ServiceStack } from '../../infra/stack.ts';
import { TABLE_DEFINITION } from '../../infra/table-definition.ts';

const cdkContext = JSON.parse(readFileSync('cdk.json', 'utf8')).context as Record<string, unknown>;

/** Synthesizes with cdk.json's context, as `cdk synth` does; bundling is skipped (it is exercised by `cdk synth`). */
const synth = (stage: string) => {
  const app = new App({ context: { ...cdkContext, stage, 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(new ServiceStack(app, `Test-${stage}`, { stage }));
};

const prod = synth('prod');
const dev = synth('dev');

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = (template: Template, type: string) => Object.values(template.findResources(type)) as Resource[];

describe('the CDK stack', () => {
  it('serves every route-table entry under /v2 and /api/v2, both integrated with its own function', () => {
    const routes = resources(prod, 'AWS::ApiGatewayV2::Route');
    const integrations = resources(prod, 'AWS::ApiGatewayV2::Integration');

    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(
      ROUTES.flatMap((route) => [`${route.method} /v2${route.path}`, `${route.method} /api/v2${route.path}`]).sort(),
    );
    const targets = integrations.map((i) => JSON.stringify(i.Properties.IntegrationUri));
    expect(new Set(targets).size).toBe(ROUTES.length);
  });

  it('answers CORS preflights for any origin with the key, authorization and content-type headers', () => {
    prod.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['*'],
        AllowHeaders: ['X-API-KEY', 'Authorization', 'Content-Type'],
        AllowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
        ExposeHeaders: ['Deprecation', 'Link', 'Retry-After'],
        MaxAge: 600,
      },
    });
  });

  it('runs every route function on Node 24, arm64, without Node reading source maps at load', () => {
    const functions = resources(prod, 'AWS::Lambda::Function');
    const routeFunctions = Object.keys(prod.findResources('AWS::Lambda::Function')).filter((id) =>
      ROUTES.some((route) => id.startsWith(route.name.replaceAll('-', ''))),
    );

    expect(routeFunctions).toHaveLength(ROUTES.length);
    for (const fn of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain('--enable-source-maps');
    }
  });

  it('defines the table with the shared keys and live-asset indexes, on demand, with PITR', () => {
    prod.hasResourceProperties('AWS::DynamoDB::Table', {
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
    prod.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    dev.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });

  it('grants no IAM statement on the "*" resource except the X-Ray actions, which have no resource type', () => {
    const statements = resources(prod, 'AWS::IAM::Policy').flatMap(
      (policy) =>
        (policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }).Statement,
    );
    const onEverything = statements.filter((statement) => [statement.Resource].flat().includes('*'));

    expect(statements.length).toBeGreaterThan(0);
    expect(new Set(onEverything.flatMap((statement) => [statement.Action].flat()))).toEqual(
      new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
    );
  });

  it('gives read-only routes no write permission on the table', () => {
    const writeActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    const policies = resources(prod, 'AWS::IAM::Policy');
    const readOnly = ROUTES.filter((route) => route.access === 'read');

    for (const route of readOnly) {
      const policy = policies.find((p) => JSON.stringify(p.Properties.Roles).includes(route.name.replaceAll('-', '')));
      expect(policy, route.name).toBeDefined();
      const actions = JSON.stringify(policy?.Properties.PolicyDocument);
      for (const action of writeActions) expect(actions).not.toContain(action);
    }
  });

  it('gives the functions of routes without table access no table name and no table permission', () => {
    const policies = resources(prod, 'AWS::IAM::Policy');
    const functions = prod.findResources('AWS::Lambda::Function');
    const tableless = ROUTES.filter((route) => route.access === 'none');

    expect(tableless.length).toBeGreaterThan(0);
    for (const route of tableless) {
      const prefix = route.name.replaceAll('-', '');
      const policy = policies.find((p) => JSON.stringify(p.Properties.Roles).includes(prefix));
      const fn = Object.entries(functions).find(([id]) => id.startsWith(prefix))?.[1] as Resource;
      expect(JSON.stringify(policy?.Properties.PolicyDocument ?? {}), route.name).not.toContain('dynamodb:');
      expect(JSON.stringify(fn.Properties.Environment), route.name).not.toContain('TABLE_NAME');
    }
  });

  it('throttles the default stage', () => {
    prod.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: Match.objectLike({
        ThrottlingRateLimit: Match.anyValue(),
        ThrottlingBurstLimit: Match.anyValue(),
      }),
    });
  });
});
