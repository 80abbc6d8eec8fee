/**
 * Benches that run in a process of their own, so that their handlers read their own table (and
 * settings): the parent starts the file with the endpoint and reads its rows, printed as JSON on
 * the last line of stdout.
 */
import { execFileSync } from 'node:child_process';

export type Row = { name: string; value: string };

/** Runs bench `file` (a path under the project root) in a child process with `env` added, and returns its rows. */
export const rowsOfChild = (file: string, endpoint: string, env: Record<string, string>): Row[] => {
  const output = execFileSync(process.execPath, ['--import', 'tsx', file, endpoint], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '[]') as Row[];
};

/** In the child: runs `run` on the endpoint the parent passed and prints its rows, when this process was started for `file`. */
export const runAsChild = (file: string, run: (endpoint: string) => Promise<Row[]>): void => {
  const endpoint = process.argv[2];
  if (!process.argv[1]?.endsWith(file) || endpoint === undefined) return;
  run(endpoint).then(
    (rows) => {
      console.log(JSON.stringify(rows));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};

/** The value at quantile `p` of `values` (unsorted). */
export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
};
