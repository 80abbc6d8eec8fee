import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_FILE } from '../../../infra/openapi/file.ts';

type Problem = { ruleId: string; message: string; location: { pointer: string }[] };
type Report = { totals: { errors: number; warnings: number }; problems: Problem[] };

const CLI = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

describe('redocly lint of the committed description', () => {
  it('finds no problem with the recommended rules (redocly.yaml, .redocly.lint-ignore.yaml)', () => {
    const run = spawnSync(process.execPath, [CLI, 'lint', DOCUMENT_FILE, '--format=json'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(run.stdout) as Report;

    expect(
      report.problems.map(({ ruleId, message, location }) => `${ruleId} at ${location[0]?.pointer}: ${message}`),
    ).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.status).toBe(0);
  });
});
