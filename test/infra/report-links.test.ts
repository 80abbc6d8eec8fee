import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthService } from '../fixtures/stack.ts';

type Fn = { Properties: { Environment?: { Variables?: Record<string, string> } } };
const routeEnvironments = (templates: readonly Template[]) =>
  templates
    .flatMap((template) => Object.values(template.findResources('AWS::Lambda::Function')) as Fn[])
    .map((fn) => fn.Properties.Environment?.Variables ?? {})
    .filter((variables) => variables.ROUTE_NAME !== undefined);

describe('the reportUrlBase stage setting', () => {
  it('reaches the route functions as REPORT_URL_BASE, and is unset by default so the links lead to the stage’s own page', () => {
    const set = routeEnvironments(synthService('dev', { reportUrlBase: 'https://reports.example.com/r/' }).all);
    const unset = routeEnvironments(synthService('dev').all);

    expect(set.find((variables) => variables.ROUTE_NAME === 'asset-details')?.REPORT_URL_BASE).toBe(
      'https://reports.example.com/r/',
    );
    expect(unset.filter((variables) => variables.REPORT_URL_BASE !== undefined)).toEqual([]);
  });
});
