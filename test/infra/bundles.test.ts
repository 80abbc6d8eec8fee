import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptions, NODE_OPTIONS } from '../../infra/bundling.ts';
import { ROUTES } from '../../infra/routes.ts';

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
    '$name holds no S3, Secrets Manager or SQS client, and the signed requests only when it reads snapshots or the cursor key',
    async (route) => {
      const { packages, modules } = await contentsOf(route.entry);

      expect({
        clients: [...packages].filter((name) =>
          ['@aws-sdk/client-s3', '@aws-sdk/client-secrets-manager', '@aws-sdk/client-sqs'].includes(name),
        ),
        s3: modules.has('shared/db/s3.ts'),
        secretsManager: modules.has('shared/db/cursor-key-secret.ts'),
      }).toEqual({
        clients: [],
        s3: Boolean(route.readsCheckLists || route.readsVerdicts),
        secretsManager: Boolean(route.readsCursorKey),
      });
    },
    30_000,
  );

  it.each(ROUTES)(
    '$name holds one copy of each package, the signing and HTTP parts of the S3 and Secrets Manager requests included',
    async (route) => {
      const { packages, copies } = await contentsOf(route.entry);

      const held = [...packages].filter((name) => [...copies].filter((copy) => copy.endsWith(`/${name}`)).length > 1);

      // Powertools parameters (2.35, its newest release) depends on commons 2.35; logger and metrics use 2.36.
      expect(held).toEqual(route.readsCursorKey ? ['@aws-lambda-powertools/commons'] : []);
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
