import { afterEach, describe, expect, it, vi } from 'vitest';
import { config } from '../../shared/config.ts';

describe('the access log sample rate', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is 1 in 100 in Lambda and every line elsewhere when it is not set', () => {
    vi.stubEnv('ACCESS_LOG_SAMPLE_RATE', undefined);
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', undefined);
    const local = config.accessLogSampleRate;
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'asset-protection-prod-check-asset');

    expect([local, config.accessLogSampleRate]).toEqual([1, 0.01]);
  });

  it.each([
    ['0', 0],
    ['0.05', 0.05],
    ['.5', 0.5],
    ['1', 1],
  ])('reads %s as the fraction %d', (value, rate) => {
    vi.stubEnv('ACCESS_LOG_SAMPLE_RATE', value);

    expect(config.accessLogSampleRate).toBe(rate);
  });

  it.each(['1.5', '-0.1', '2', '1%', 'half'])('refuses %s', (value) => {
    vi.stubEnv('ACCESS_LOG_SAMPLE_RATE', value);

    expect(() => config.accessLogSampleRate).toThrow('ACCESS_LOG_SAMPLE_RATE must be a fraction from 0 to 1');
  });
});
