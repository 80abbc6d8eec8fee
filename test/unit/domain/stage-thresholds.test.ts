import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config.ts';
import {
  DEFAULT_THRESHOLDS,
  effectiveSettings,
  parseStageThresholds,
} from '../../../shared/domain/account/organization-settings.ts';

describe('the stage healthcheck thresholds', () => {
  afterEach(() => {
    delete process.env.HEALTHCHECK_THRESHOLDS;
  });

  it('parse from JSON by healthcheck key; unset or blank is none', () => {
    expect(parseStageThresholds('{"reviewing.backlog":{"warn":5,"fail":9}}')).toEqual({
      'reviewing.backlog': { warn: 5, fail: 9 },
    });
    expect(parseStageThresholds(undefined)).toEqual({});
    expect(parseStageThresholds('  ')).toEqual({});
  });

  it('refuse what is not JSON, an unknown check, a negative or inverted threshold, naming it', () => {
    expect(() => parseStageThresholds('{')).toThrow('healthcheck thresholds must be JSON');
    expect(() => parseStageThresholds('[]')).toThrow('healthcheck thresholds must be an object of healthcheck keys');
    expect(() => parseStageThresholds('{"takedowns.nope":{"warn":1,"fail":2}}')).toThrow(
      /^healthcheck thresholds takedowns\.nope: healthcheck must be one of reviewing\.backlog, /,
    );
    expect(() => parseStageThresholds('{"reviewing.backlog":{"warn":-1,"fail":2}}')).toThrow(
      'healthcheck thresholds reviewing.backlog.warn: warn must not be negative',
    );
    expect(() => parseStageThresholds('{"reviewing.backlog":{"warn":3,"fail":2}}')).toThrow(
      'healthcheck thresholds reviewing.backlog: warn must not be above fail',
    );
  });

  it('replace the built-in ones they name, under an organization’s own', () => {
    const stage = parseStageThresholds(
      '{"reviewing.backlog":{"warn":5,"fail":9},"takedowns.todo-volume":{"warn":1,"fail":2}}',
    );
    const settings = effectiveSettings(
      { healthcheckThresholds: { 'takedowns.todo-volume': { warn: 7, fail: 8 } } },
      stage,
    );

    expect(settings.thresholds).toEqual({
      ...DEFAULT_THRESHOLDS,
      'reviewing.backlog': { warn: 5, fail: 9 },
      'takedowns.todo-volume': { warn: 7, fail: 8 },
    });
    expect(effectiveSettings({}).thresholds).toEqual(DEFAULT_THRESHOLDS);
  });

  it('are read from HEALTHCHECK_THRESHOLDS, whose error names the variable', () => {
    expect(config.healthcheckThresholds).toEqual({});
    process.env.HEALTHCHECK_THRESHOLDS = '{"reviewing.old-proposals":{"warn":2,"fail":3}}';
    expect(config.healthcheckThresholds).toEqual({ 'reviewing.old-proposals': { warn: 2, fail: 3 } });
    process.env.HEALTHCHECK_THRESHOLDS = 'nope';
    expect(() => config.healthcheckThresholds).toThrow('HEALTHCHECK_THRESHOLDS: healthcheck thresholds must be JSON');
  });
});
