import { describe, expect, it } from 'vitest';
import { prettyLine } from '../../../infra/local/pretty-logs.ts';

const ESC = String.fromCharCode(27);
const plain = (text: string) => text.replaceAll(new RegExp(`${ESC}\\[\\d+m`, 'g'), '');

describe('local log lines in a terminal', () => {
  it('show an access line as time, level, message and its own fields, without the Lambda boilerplate', () => {
    const line = JSON.stringify({
      level: 'INFO',
      message: 'access',
      timestamp: '2026-06-01T12:00:00.123Z',
      service: 'asset-protection-local',
      sampling_rate: 0,
      cold_start: true,
      function_name: 'list-assets',
      function_request_id: 'abc',
      route: 'GET /v2/organization/assets',
      status: 200,
      latencyMs: 4.2,
      orgId: 'acme',
    });

    expect(plain(prettyLine(line))).toBe(
      '12:00:00.123 INFO  access cold_start=true route=GET /v2/organization/assets status=200 latencyMs=4.2 orgId=acme',
    );
  });

  it('show a metric record as its dimensions and values with units', () => {
    const record = JSON.stringify({
      _aws: {
        Timestamp: 0,
        CloudWatchMetrics: [
          {
            Namespace: 'AssetProtection',
            Dimensions: [['service', 'route']],
            Metrics: [
              { Name: 'Requests', Unit: 'Count' },
              { Name: 'Latency', Unit: 'Milliseconds' },
            ],
          },
        ],
      },
      service: 'asset-protection-local',
      route: 'list-assets',
      Requests: 1,
      Latency: 4.2,
    });

    expect(plain(prettyLine(record))).toBe(`${'metric'.padEnd(21)}route=list-assets Requests=1 Latency=4.2ms`);
  });

  it('leave any other line as it is', () => {
    expect(prettyLine('{not json')).toBe('{not json');
    expect(prettyLine('{"a":1}')).toBe('{"a":1}');
  });
});
