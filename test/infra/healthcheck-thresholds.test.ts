import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthService } from '../fixtures/stack.ts';

type Fn = { Properties: { Environment?: { Variables?: Record<string, string> } } };
const routeEnvironments = (templates: readonly Template[]) =>
  templates
    .flatMap((template) => Object.values(template.findResources('AWS::Lambda::Function')) as Fn[])
    .map((fn) => fn.Properties.Environment?.Variables ?? {})
    .filter((variables) => variables.ROUTE_NAME !== undefined);

const STAGE = JSON.stringify({ 'reviewing.backlog': { warn: 5, fail: 9 } });

describe('the healthcheckThresholds stage setting', () => {
  it('reaches the insights functions (every healthcheck route) as HEALTHCHECK_THRESHOLDS, no other, and none when unset', () => {
    const set = routeEnvironments(synthService('dev', { healthcheckThresholds: STAGE }).all);
    const unset = routeEnvironments(synthService('dev').all);

    const holding = set.filter((variables) => variables.HEALTHCHECK_THRESHOLDS !== undefined);
    expect(holding.map((variables) => variables.ROUTE_AREA)).toEqual(holding.map(() => 'insights'));
    expect(holding.map((variables) => variables.ROUTE_NAME)).toEqual(
      expect.arrayContaining(['list-healthchecks', 'healthcheck-reviewing-backlog']),
    );
    expect(new Set(holding.map((variables) => variables.HEALTHCHECK_THRESHOLDS))).toEqual(new Set([STAGE]));
    expect(unset.filter((variables) => variables.HEALTHCHECK_THRESHOLDS !== undefined)).toEqual([]);
  });

  it('stops synth with one line when the thresholds do not parse', () => {
    expect(() =>
      synthService('dev', { healthcheckThresholds: '{"reviewing.backlog": {"warn": 9, "fail": 5}}' }),
    ).toThrow(/^-c healthcheckThresholds: healthcheck thresholds reviewing\.backlog: warn must not be above fail$/);
    expect(() => synthService('dev', { healthcheckThresholds: '{"no.such": {"warn": 1, "fail": 2}}' })).toThrow(
      /^-c healthcheckThresholds: healthcheck thresholds no\.such: healthcheck must be one of /,
    );
    expect(() => synthService('dev', { healthcheckThresholds: 'warn=1' })).toThrow(
      /^-c healthcheckThresholds: healthcheck thresholds must be JSON$/,
    );
  });
});
