import { fileURLToPath } from 'node:url';
import { type BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/** Turns a bundle's stack traces back into source positions, reading its map only when a trace is first printed. */
const SOURCE_STACK = fileURLToPath(new URL('./source-stack.ts', import.meta.url));

/**
 * How every function is bundled by `NodejsFunction` (esbuild, no Docker): minified CJS with the
 * AWS SDK inside, and a source map beside the bundle, which `SOURCE_STACK` reads at the first stack
 * trace rather than Node at load. Function and class names are not kept (`keepNames` sets the name
 * of every function as the bundle loads, which cost 0.3–2.8 ms of a route's load over the SDK-only
 * bundle's, in paired runs): error classes spell out their names (shared/errors.ts), and stack traces take the
 * source names from the map. The maps carry positions
 * only, not the sources: a stack trace needs no more, and a map without them is a third of the size.
 * Packages are taken from their ES module builds where they have one (`module` before `main`):
 * the SDK's can be tree-shaken, and the SDK-only bundle loads in about 45 ms instead of 85.
 */
export const BUNDLING = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  keepNames: false,
  format: OutputFormat.CJS,
  target: 'node24',
  bundleAwsSDK: true,
  mainFields: ['module', 'main'],
  inject: [SOURCE_STACK],
  // esbuild turns regular expressions with Unicode property escapes into `new RegExp(...)` calls
  // for Node targets, which run as the bundle loads even when nothing uses them (valibot's emoji
  // pattern, in every route). Node 24 parses them: they stay literals, and unused ones are dropped.
  esbuildArgs: { '--supported:regexp-unicode-property-escapes': 'true' },
  // esbuild's table of output files and sizes, per function, was most of `cdk synth`'s output; warnings and errors still print.
  logLevel: LogLevel.WARNING,
} as const satisfies BundlingOptions;

/**
 * What the bundle of a function CDK does not trace actively is built with (PassThrough, or a stage
 * without tracing): `process.env.POWERTOOLS_TRACE_ENABLED` fixed to `"false"`, which drops the
 * Powertools tracer and the X-Ray SDK from it (shared/tracing.ts). Its environment says the same.
 */
export const UNTRACED_DEFINE = { 'process.env.POWERTOOLS_TRACE_ENABLED': JSON.stringify('false') } as const;

/** `BUNDLING` for a function that is traced actively or not. */
export const bundlingFor = (traced: boolean): BundlingOptions =>
  traced ? BUNDLING : { ...BUNDLING, define: UNTRACED_DEFINE };

/** `BUNDLING`'s `--supported:<feature>=true` arguments, as esbuild's `supported` option. */
const supported = Object.fromEntries(
  Object.entries(BUNDLING.esbuildArgs).map(([arg, value]) => [arg.replace(/^--supported:/, ''), value === 'true']),
);

/**
 * The esbuild options `NodejsFunction` passes for `bundlingFor(traced)`, for measuring and auditing
 * the same bundles (in a stage that traces, a route's function is traced unless the route table marks it `untraced`).
 */
export const esbuildOptions = (entry: string, outfile: string, traced = true): BuildOptions => ({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  target: BUNDLING.target,
  format: 'cjs',
  minify: BUNDLING.minify,
  sourcemap: BUNDLING.sourceMap,
  sourcesContent: BUNDLING.sourcesContent,
  keepNames: BUNDLING.keepNames,
  mainFields: [...BUNDLING.mainFields],
  inject: [...BUNDLING.inject],
  supported,
  ...(traced ? {} : { define: { ...UNTRACED_DEFINE } }),
  logLevel: 'silent',
});
