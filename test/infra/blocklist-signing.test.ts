import { describe, expect, it } from 'vitest';
import { synthService } from '../fixtures/stack.ts';

const service = synthService('prod');
type Resource = { Type: string; Properties: Record<string, unknown> };

const resources = (type: string) =>
  service.all.flatMap((template) => Object.entries(template.findResources(type)) as [string, Resource][]);

describe('the blocklist signing key secret', () => {
  it('is readable by the role of the version function alone, the route that signs', () => {
    type Statement = { Action: string | string[]; Resource: unknown };
    const secrets = resources('AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('BlocklistSigningSecret'));
    // The secret is referenced by its logical id in the service stack, through a parameter naming it in an area's.
    const readsSecret = (statement: Statement) =>
      [statement.Action].flat().includes('secretsmanager:GetSecretValue') &&
      JSON.stringify(statement.Resource).includes('BlocklistSigningSecret');
    const readers = resources('AWS::IAM::Policy').filter(([, policy]) =>
      (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement.some(readsSecret),
    );
    const roles = readers.flatMap(([, policy]) => policy.Properties.Roles as { Ref: string }[]);

    expect(secrets).toHaveLength(1);
    expect(roles.map((role) => role.Ref.replace(/FunctionRole.*$/, ''))).toEqual(['getblocklistversion']);
  });

  it('names the secret to the version function alone, and puts no key in any configuration', () => {
    const named = resources('AWS::Lambda::Function')
      .filter(([, fn]) => JSON.stringify(fn.Properties.Environment ?? {}).includes('BLOCKLIST_SIGNING_SECRET_ARN'))
      .map(([id]) => id.replace(/Function.*$/, ''));

    expect(named).toEqual(['getblocklistversion']);
    expect(JSON.stringify(service.all.map((template) => template.toJSON()))).not.toMatch(/"d":|privateJwk/);
  });
});
