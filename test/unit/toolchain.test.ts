import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> };

/** npm's own command line: the one `npm test` runs under, else the machine's. */
const npmCli = process.env.npm_execpath ?? '/usr/bin/npm';

/** npm's install check of the lockfile, run by the Node that runs the scripts, with warnings shown and engines strict. */
const dryInstall = () =>
  spawnSync(
    process.execPath,
    [
      npmCli,
      'ci',
      '--dry-run',
      '--engine-strict',
      '--offline',
      '--loglevel=warn',
      '--no-audit',
      '--no-fund',
      '--no-update-notifier',
    ],
    { encoding: 'utf8' },
  );

describe('the toolchain an install sets up', () => {
  it('runs the scripts on the Node of the `node` devDependency', () => {
    const major = /\d+/.exec(manifest.devDependencies.node ?? '')?.[0];

    expect(process.versions.node.split('.')[0]).toBe(major);
  });

  it('installs only packages whose engines admit that Node, and runs only the install scripts allowScripts decides', () => {
    const install = dryInstall();

    expect(install.stderr.split('\n').filter((line) => /^npm (warn|error)/.test(line))).toEqual([]);
    expect(install.status).toBe(0);
  });
});
