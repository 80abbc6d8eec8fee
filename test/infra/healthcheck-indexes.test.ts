import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ACTIVITY_INDEX } from '../../shared/db/keys.ts';
import { HEALTHCHECK_KEYS } from '../../shared/domain/account/organization-settings.ts';
import { synthService } from '../fixtures/stack.ts';

const prod = synthService('prod');

type Resource = { Properties: Record<string, unknown> };
const policyOf = (templates: readonly Template[], routeName: string) =>
  templates
    .flatMap((template) => Object.entries(template.findResources('AWS::IAM::Policy')) as [string, Resource][])
    .find(([id]) => id.startsWith(`${routeName.replaceAll('-', '')}FunctionRole`))?.[1];
const indexesOf = (routeName: string) =>
  [...JSON.stringify(policyOf(prod.all, routeName) ?? {}).matchAll(/\/index\/([A-Za-z0-9]+)/g)].map((m) => m[1]);

describe('the healthcheck functions', () => {
  it('may query the index of their oldest offenders, the age checks only, and never Scan', () => {
    const granted = Object.fromEntries(
      HEALTHCHECK_KEYS.map((check) => [check, indexesOf(`healthcheck-${check.replace('.', '-')}`)]),
    );

    expect(granted).toEqual(
      Object.fromEntries(
        HEALTHCHECK_KEYS.map((check) => [
          check,
          check === 'reviewing.old-proposals'
            ? [ACTIVITY_INDEX.list2.name]
            : check === 'takedowns.stale-in-progress'
              ? [ACTIVITY_INDEX.list3.name]
              : [],
        ]),
      ),
    );
    expect(JSON.stringify(policyOf(prod.all, 'healthcheck-takedowns-stale-in-progress'))).not.toContain(
      'dynamodb:Scan',
    );
  });
});
