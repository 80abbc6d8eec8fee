import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedFiles } from '../../infra/api-function.ts';
import { esbuildOptions } from '../../infra/bundling.ts';
import { loadFixture, parseFixture } from '../../infra/local/fixture.ts';
import { ROUTES } from '../../infra/routes.ts';
import { sampleEvent } from '../fixtures/sample-events.ts';
import { createTestTable, type TestTable } from '../fixtures/table.ts';

/**
 * What each route's sample event gets from the demo fixture, the routes taking their turns in
 * route-table order on one table (the group the sample creates, then the one it deletes; the
 * asset and proposal the samples name are not in the demo, nor is the artifact token: each bundle's
 * process starts with no artifact).
 * asset, proposal and report the samples name are not in the demo).
 */
const EXPECTED_STATUS: Record<string, number> = {
  'update-asset': 404,
  'delete-asset': 404,
  'review-proposal': 404,
  'get-blocklist-artifact': 404,
  'get-report-page': 404,
  'get-scan-result': 404,
  // The demo user key reads only: the profile update is refused for the scope, after the whole chain ran.
  'update-current-user': 403,
  // The sample's receiver is a name that resolves nowhere; the webhook the others name is not in the demo.
  'create-webhook': 400,
  'update-webhook': 404,
  'delete-webhook': 404,
  'test-webhook': 404,
  'list-webhook-deliveries': 404,
  'update-detection-config': 404,
  'delete-detection-config': 404,
  // The demo's collections are fixed; the sample object and status are examples of their kind, not in the demo.
  'taxii-get-object': 404,
  'taxii-get-versions': 404,
  'taxii-get-status': 404,
  // The service maintains its collections: a delete is refused.
  'taxii-delete-object': 403,
  'taxii-add-objects': 202,
};

const DAY_MS = 86_400_000;

/** Moves the process's clock `aheadMs` ahead before anything loads: `Date.now()` and `new Date()` both. */
const clockAhead = (aheadMs: number): string =>
  aheadMs === 0
    ? ''
    : `const RealDate = Date;
       globalThis.Date = class extends RealDate {
         constructor(...parts) { super(...(parts.length === 0 ? [RealDate.now() + ${aheadMs}] : parts)); }
         static now() { return RealDate.now() + ${aheadMs}; }
       };`;

const CONTEXT = {
  functionName: 'bundle',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bundle',
  memoryLimitInMB: '512',
  awsRequestId: 'bundle-request',
  logGroupName: 'bundle',
  logStreamName: 'bundle',
  callbackWaitsForEmptyEventLoop: false,
};

/**
 * Each sample event runs today and with the process's clock a year and three years ahead (the
 * event stamped with that moment, as `npm run invoke` stamps it now): an event that wrote
 * "recent" as a fixed date would answer differently once that date is past.
 */
const clocks = [
  { clock: 'today', aheadMs: 0 },
  { clock: 'a year ahead', aheadMs: 365 * DAY_MS },
  { clock: 'three years ahead', aheadMs: 3 * 365 * DAY_MS },
];

describe('every route bundled as deployed (minified CJS, the SDK inside, the tracer where traced), with the files it ships', () => {
  let dir: string;
  /** One table per clock, each loaded with the demo: the routes take their turns on each as they would on a fresh one. */
  const tables = new Map<number, TestTable>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bundles-run-'));
    // CommonJS, as in the function's directory (`/var/task` has no package.json).
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    const [first] = ROUTES;
    if (!first) throw new Error('No routes');
    // `<route>/index.js`: one directory per function, as `/var/task`, with the files it ships beside the bundle;
    // the traced routes' bundles hold the tracer, which records nothing outside Lambda (shared/tracing.ts).
    for (const traced of [true, false]) {
      const routes = ROUTES.filter((route) => !route.untraced === traced);
      await build({
        ...esbuildOptions(first.entry, join(dir, 'unused.js'), traced),
        outfile: undefined,
        outdir: dir,
        entryPoints: Object.fromEntries(routes.map((route) => [`${route.name}/index`, route.entry])),
      });
    }
    for (const route of ROUTES) {
      for (const file of shippedFiles(route.files)) cpSync(file, join(dir, route.name, file));
    }
    const demo = parseFixture(JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
    for (const { aheadMs } of clocks) {
      const table = await createTestTable(`bundles-${aheadMs}`);
      await loadFixture(table.db, table.tableName, demo, () => undefined);
      tables.set(aheadMs, table);
    }
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(clocks.flatMap((clock) => ROUTES.map((route) => ({ name: route.name, route, ...clock }))))(
    '$name loads in a fresh Node process in its own directory and answers its sample event ($clock)',
    ({ route, aheadMs }) => {
      const table = tables.get(aheadMs) as TestTable;
      const event = sampleEvent(route, Date.now() + aheadMs);
      const script = `${clockAhead(aheadMs)}
        const { handler } = require('./index.js');
        const context = { ...${JSON.stringify(CONTEXT)}, getRemainingTimeInMillis: () => 29000 };
        Promise.resolve(handler(${JSON.stringify(event)}, context)).then((response) => {
          // Exit once the answer is written: a pipe takes a large one (the API description) in parts.
          process.stdout.write('\\n' + JSON.stringify(response), () => process.exit(0));
        });`;
      const run = spawnSync(process.execPath, ['-e', script], {
        cwd: join(dir, route.name),
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          TABLE_NAME: table.tableName,
          DYNAMODB_ENDPOINT: table.endpoint,
          // The list snapshots stand in for the S3 bucket; everything else the function reads, it ships.
          LISTS_DIR: resolve('infra/local/lists'),
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      const response = JSON.parse(run.stdout.trim().split('\n').at(-1) || '{}') as {
        statusCode?: number;
        headers?: Record<string, string>;
        body?: string;
      };

      expect(run.stderr).toBe('');
      expect(response.statusCode).toBe(EXPECTED_STATUS[route.name] ?? 200);
      if (response.headers?.['content-type']?.startsWith('application/json')) {
        expect(() => JSON.parse(response.body ?? '')).not.toThrow();
      }
    },
  );
});
