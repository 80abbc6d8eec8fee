import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleOf } from '../../infra/api-function.ts';
import { esbuildOptions } from '../../infra/bundling.ts';
import { ROUTES, type Route, WORKERS } from '../../infra/routes.ts';
import { PUBLIC_SUFFIXES_FILE } from '../../shared/domain/check/public-suffix.ts';
import { synthService } from '../fixtures/stack.ts';

/** `packages` by name; `copies`, every package directory whose code is in the bundle (two for a name held twice). */
type BundleContents = { packages: Set<string>; copies: Set<string>; modules: Set<string> };

/** The packages, and the project's own modules, whose code a route's bundle, built as deployed, holds (esbuild's metafile). */
const bundleContents = async (entry: string, traced: boolean): Promise<BundleContents> => {
  const { metafile } = await build({
    ...esbuildOptions(entry, 'bundle/index.js', traced),
    write: false,
    metafile: true,
  });
  const contents = { packages: new Set<string>(), copies: new Set<string>(), modules: new Set<string>() };
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      if (input.bytesInOutput === 0) continue;
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
      const copy = /^.*node_modules\/(?:@[^/]+\/)?[^/]+/.exec(path)?.[0];
      if (name && copy) {
        contents.packages.add(name);
        contents.copies.add(copy);
      } else contents.modules.add(path);
    }
  }
  return contents;
};
const built = new Map<string, Promise<BundleContents>>();
/** The bundle of `entry`, built as for a traced function (with the tracer) unless `traced` is false. */
const contentsOf = (entry: string, traced = true): Promise<BundleContents> => {
  const key = `${entry} ${traced}`;
  if (!built.has(key)) built.set(key, bundleContents(entry, traced));
  return built.get(key) as Promise<BundleContents>;
};
/** A route's bundle as its function's, in a stage that traces. */
const routeContents = (route: Route) => contentsOf(route.entry, !route.untraced);
const packagesOf = async (route: Route): Promise<Set<string>> => (await routeContents(route)).packages;

describe('the bundle of each route, as deployed', () => {
  it.each(ROUTES)(
    '$name holds the S3 client only when it reads snapshots or blocklist artifacts, Secrets Manager only when it reads the cursor key or signs blocklist manifests, SQS only when it queues work',
    async (route) => {
      const packages = await packagesOf(route);

      expect(
        [...packages]
          .filter((name) =>
            ['@aws-sdk/client-s3', '@aws-sdk/client-secrets-manager', '@aws-sdk/client-sqs'].includes(name),
          )
          .sort(),
      ).toEqual([
        ...(route.readsCheckLists || route.readsVerdicts || route.blocklistArtifacts ? ['@aws-sdk/client-s3'] : []),
        ...(route.readsCursorKey || route.signsBlocklist ? ['@aws-sdk/client-secrets-manager'] : []),
        ...(route.queuesWebhookDeliveries || route.queuesDetectionRuns || route.startsScans
          ? ['@aws-sdk/client-sqs']
          : []),
      ]);
    },
    30_000,
  );

  it.each(ROUTES)(
    '$name holds one copy of each package, the parts the SDK clients share included',
    async (route) => {
      const { packages, copies } = await routeContents(route);

      const held = [...packages].filter((name) => [...copies].filter((copy) => copy.endsWith(`/${name}`)).length > 1);

      // Powertools parameters (2.35, its newest release) depends on commons 2.35; logger and metrics use 2.36.
      expect(held).toEqual(route.readsCursorKey || route.signsBlocklist ? ['@aws-lambda-powertools/commons'] : []);
    },
    30_000,
  );

  it.each(ROUTES)(
    '$name holds neither tldts, nor the Public Suffix List, nor the list eth-phishing-detect ships (read from files when needed)',
    async (route) => {
      const { packages, modules } = await routeContents(route);

      expect([...packages].filter((name) => ['tldts', 'tldts-core', 'eth-phishing-detect'].includes(name))).toEqual([]);
      expect(modules.has(PUBLIC_SUFFIXES_FILE)).toBe(false);
    },
    30_000,
  );

  it.each(ROUTES.filter((route) => route.access === 'none' && route.blocklistArtifacts === undefined))(
    '$name, which has no table and no bucket, holds no AWS SDK client',
    async (route) => {
      const packages = await packagesOf(route);

      // The clients' runtime (HTTP handler, signer, retries, protocols) is published as @smithy packages;
      // the X-Ray SDK of a traced function's tracer brings the one that classifies errors (a few kB).
      expect([...packages].filter((name) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/'))).toEqual(
        route.untraced ? [] : ['@smithy/service-error-classification'],
      );
    },
    30_000,
  );
});

/** Every function of a stage: its id, X-Ray mode and environment from the template, and how CDK bundles it. */
const functionsOf = (stage: string) =>
  synthService(stage)
    .stack.node.findAll()
    .filter((construct): construct is NodejsFunction => construct instanceof NodejsFunction)
    .map((fn) => {
      const cfn = fn.node.defaultChild as CfnFunction;
      const bundle = bundleOf(fn);
      if (!bundle) throw new Error(`${fn.node.path} was not built by serviceFunction`);
      const mode = (cfn.tracingConfig as { mode?: string } | undefined)?.mode;
      const environment =
        (Stack.of(fn).resolve(cfn.environment) as { variables?: Record<string, string> } | undefined)?.variables ?? {};
      return { path: fn.node.path, mode, environment, ...bundle };
    });
const TRACER_PACKAGES = ['@aws-lambda-powertools/tracer', 'aws-xray-sdk-core'];

describe('the tracer in the bundle of each function, as CDK builds it', () => {
  const prod = functionsOf('prod');

  it('traces every prod function actively but the two check-class routes, which pass traces through', () => {
    expect(prod.length).toBe(ROUTES.length + Object.keys(WORKERS).length);
    expect(prod.filter((fn) => fn.mode !== 'Active').map((fn) => [fn.entry, fn.mode])).toEqual(
      ROUTES.filter((route) => route.untraced).map((route) => [route.entry, 'PassThrough']),
    );
  });

  it.each(prod.map((fn) => ({ ...fn, name: fn.path.split('/').slice(-2).join('/') })))(
    '$name ($mode): the tracer and the X-Ray SDK are in its bundle exactly when it is traced actively',
    async (fn) => {
      const { packages } = await contentsOf(fn.entry, fn.traced);

      expect(fn.traced).toBe(fn.mode === 'Active');
      expect(TRACER_PACKAGES.filter((name) => packages.has(name))).toEqual(fn.traced ? TRACER_PACKAGES : []);
      expect(fn.environment.POWERTOOLS_TRACE_ENABLED).toBe(fn.traced ? undefined : 'false');
    },
    30_000,
  );

  it('builds no function of a stage without tracing with the tracer, and tells each so', () => {
    const dev = functionsOf('dev');

    expect(dev.length).toBe(prod.length);
    for (const fn of dev) {
      expect(fn.mode, fn.path).toBeUndefined();
      expect(fn.traced, fn.path).toBe(false);
      expect(fn.environment.POWERTOOLS_TRACE_ENABLED, fn.path).toBe('false');
    }
  });
});

describe('a bundle, as deployed', () => {
  it('keeps Unicode property escapes as regular expression literals, so that unused ones are dropped rather than built at load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-regexp-'));
    const entry = join(dir, 'patterns.ts');
    writeFileSync(entry, 'const unused = /\\p{Emoji_Presentation}/u;\nexport const upper = /^\\p{Lu}+$/u;\n');
    const { outputFiles } = await build({ ...esbuildOptions(entry, join(dir, 'index.js')), write: false });
    rmSync(dir, { recursive: true, force: true });
    const code = outputFiles?.find((file) => file.path.endsWith('.js'))?.text ?? '';

    expect(code).toContain('/^\\p{Lu}+$/u');
    expect(code).not.toContain('RegExp(');
    expect(code).not.toContain('Emoji');
  });
});

describe('the source map of a bundle, as deployed', () => {
  /** Bundles `source` as deployed into a fresh directory; the map is moved aside, to be put back by the script run. */
  const bundled = async (source: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-map-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    const entry = join(dir, 'fails.ts');
    writeFileSync(entry, source);
    await build(esbuildOptions(entry, join(dir, 'index.js')));
    renameSync(join(dir, 'index.js.map'), join(dir, 'aside.map'));
    return { dir, entry, bundle: join(dir, 'index.js') };
  };
  /** Loads the bundle with no map beside it, then puts the map back and runs `then` (a script using `m`, the module): its stdout and stderr. */
  const loadThenRun = (dir: string, then: string) => {
    const run = spawnSync(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const m = require(${JSON.stringify(join(dir, 'index.js'))});
         fs.renameSync(${JSON.stringify(join(dir, 'aside.map'))}, ${JSON.stringify(join(dir, 'index.js.map'))}); ${then}`,
      ],
      { env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'INFO' }, encoding: 'utf8' },
    );
    return `${run.stdout}${run.stderr}`;
  };

  it('leads a stack trace back to the source file, line and function name, reading the map at the first trace rather than at load', async () => {
    const { dir, entry } = await bundled(
      "const explain = (): never => {\n  throw new Error('fails here');\n};\nexport const fail = (): never => explain();\n",
    );

    const stack = loadThenRun(dir, 'try { m.fail() } catch (e) { console.log(e.stack) }');
    const map = JSON.parse(readFileSync(join(dir, 'index.js.map'), 'utf8')) as { sourcesContent?: unknown };
    rmSync(dir, { recursive: true, force: true });

    expect(stack).toContain(`Error: fails here\n    at explain (${entry}:2:9)`);
    expect(map.sourcesContent).toBeUndefined();
  });

  it('gives a logged error its name, source location and stack', async () => {
    const logger = join(process.cwd(), 'shared/logger.ts');
    const errors = join(process.cwd(), 'shared/errors.ts');
    const { dir, entry } = await bundled(
      `import { logger } from ${JSON.stringify(logger)};\nimport { NotFoundError } from ${JSON.stringify(errors)};\nexport const fail = () => {\n  logger.error('failed', { error: new NotFoundError('fails here') });\n};\n`,
    );

    const output = loadThenRun(dir, 'm.fail()');
    rmSync(dir, { recursive: true, force: true });
    const line = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
      error?: { name?: string; location?: string; stack?: string };
    };

    expect(line.error?.name).toBe('NotFoundError');
    expect(line.error?.location).toBe(`${entry}:4`);
    expect(line.error?.stack).toMatch(/^NotFoundError: fails here\n {4}at \S+ \(/);
    expect(line.error?.stack).toContain(`(${entry}:4:`);
  });
});
