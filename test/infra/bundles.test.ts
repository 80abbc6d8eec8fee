import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptions, NODE_OPTIONS } from '../../infra/bundling.ts';
import { ROUTES } from '../../infra/routes.ts';

/** The packages whose code a route's bundle, built as deployed, holds (esbuild's metafile). */
const bundlePackages = async (entry: string): Promise<Set<string>> => {
  const { metafile } = await build({ ...esbuildOptions(entry, 'bundle/index.js'), write: false, metafile: true });
  const packages = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
      if (name && input.bytesInOutput > 0) packages.add(name);
    }
  }
  return packages;
};
const built = new Map<string, Promise<Set<string>>>();
const packagesOf = (entry: string): Promise<Set<string>> => {
  if (!built.has(entry)) built.set(entry, bundlePackages(entry));
  return built.get(entry) as Promise<Set<string>>;
};

describe('the bundle of each route, as deployed', () => {
  it.each(ROUTES)(
    '$name holds the S3 client only when it reads snapshots, Secrets Manager only when it reads the cursor key, never SQS',
    async (route) => {
      const packages = await packagesOf(route.entry);

      expect({
        s3: packages.has('@aws-sdk/client-s3'),
        secretsManager: packages.has('@aws-sdk/client-secrets-manager'),
        sqs: packages.has('@aws-sdk/client-sqs'),
      }).toEqual({
        s3: Boolean(route.readsCheckLists || route.readsVerdicts),
        secretsManager: Boolean(route.readsCursorKey),
        sqs: false,
      });
    },
    30_000,
  );

  it.each(ROUTES)(
    '$name holds neither tldts nor the list eth-phishing-detect ships (read from a file when needed)',
    async (route) => {
      const packages = await packagesOf(route.entry);

      expect([...packages].filter((name) => ['tldts', 'tldts-core', 'eth-phishing-detect'].includes(name))).toEqual([]);
    },
    30_000,
  );

  it.each(ROUTES.filter((route) => route.access === 'none'))(
    '$name, which has no table, holds no AWS SDK',
    async (route) => {
      const packages = await packagesOf(route.entry);

      expect([...packages].filter((name) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/'))).toEqual([]);
    },
    30_000,
  );
});

describe('the source map of a bundle, as deployed', () => {
  it('leads a stack trace back to the source file and line, and carries positions only, not the sources', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-map-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    const entry = join(dir, 'fails.ts');
    writeFileSync(entry, "export const fail = (): never => {\n  throw new Error('fails here');\n};\n");
    await build(esbuildOptions(entry, join(dir, 'index.js')));

    const stack = execFileSync(
      process.execPath,
      ['-e', `try { require(${JSON.stringify(join(dir, 'index.js'))}).fail() } catch (e) { console.log(e.stack) }`],
      { env: { ...process.env, NODE_OPTIONS }, encoding: 'utf8' },
    );
    const map = JSON.parse(readFileSync(join(dir, 'index.js.map'), 'utf8')) as { sourcesContent?: unknown };
    rmSync(dir, { recursive: true, force: true });

    expect(stack).toContain(`${entry}:2:`);
    expect(map.sourcesContent).toBeUndefined();
  });
});
