import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../infra/bundling.ts';
import { ROUTES } from '../../infra/routes.ts';
import { PUBLIC_SUFFIXES_FILE } from '../../shared/domain/check/public-suffix.ts';

/** `packages` by name; `copies`, every package directory whose code is in the bundle (two for a name held twice). */
type BundleContents = { packages: Set<string>; copies: Set<string>; modules: Set<string> };

/** The packages, and the project's own modules, whose code a route's bundle, built as deployed, holds (esbuild's metafile). */
const bundleContents = async (entry: string): Promise<BundleContents> => {
  const { metafile } = await build({ ...esbuildOptions(entry, 'bundle/index.js'), write: false, metafile: true });
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
const contentsOf = (entry: string): Promise<BundleContents> => {
  if (!built.has(entry)) built.set(entry, bundleContents(entry));
  return built.get(entry) as Promise<BundleContents>;
};
const packagesOf = async (entry: string): Promise<Set<string>> => (await contentsOf(entry)).packages;

describe('the bundle of each route, as deployed', () => {
  it.each(ROUTES)(
    '$name holds the S3 client only when it reads snapshots or blocklist artifacts, Secrets Manager only when it reads the cursor key, SQS only when it queues work',
    async (route) => {
      const packages = await packagesOf(route.entry);

      expect(
        [...packages]
          .filter((name) =>
            ['@aws-sdk/client-s3', '@aws-sdk/client-secrets-manager', '@aws-sdk/client-sqs'].includes(name),
          )
          .sort(),
      ).toEqual([
        ...(route.readsCheckLists || route.readsVerdicts || route.blocklistArtifacts ? ['@aws-sdk/client-s3'] : []),
        ...(route.readsCursorKey ? ['@aws-sdk/client-secrets-manager'] : []),
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
      const { packages, copies } = await contentsOf(route.entry);

      const held = [...packages].filter((name) => [...copies].filter((copy) => copy.endsWith(`/${name}`)).length > 1);

      // Powertools parameters (2.35, its newest release) depends on commons 2.35; logger and metrics use 2.36.
      expect(held).toEqual(route.readsCursorKey ? ['@aws-lambda-powertools/commons'] : []);
    },
    30_000,
  );

  it.each(ROUTES)(
    '$name holds neither tldts, nor the Public Suffix List, nor the list eth-phishing-detect ships (read from files when needed)',
    async (route) => {
      const { packages, modules } = await contentsOf(route.entry);

      expect([...packages].filter((name) => ['tldts', 'tldts-core', 'eth-phishing-detect'].includes(name))).toEqual([]);
      expect(modules.has(PUBLIC_SUFFIXES_FILE)).toBe(false);
    },
    30_000,
  );

  it.each(ROUTES.filter((route) => route.access === 'none' && route.blocklistArtifacts === undefined))(
    '$name, which has no table and no bucket, holds no AWS SDK',
    async (route) => {
      const packages = await packagesOf(route.entry);

      // The clients' runtime (HTTP handler, signer, retries, protocols) is published as @smithy packages.
      expect([...packages].filter((name) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/'))).toEqual([]);
    },
    30_000,
  );
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
