import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertJava } from '../../../infra/local/dynamo.ts';

const path = process.env.PATH;
let dir: string | undefined;

/** Puts a `java` first on the PATH that answers `--describe-module jdk.compiler` with `status`, as a JRE (1) or a JDK (0) does. */
const givenJava = (status: number) => {
  dir = mkdtempSync(join(tmpdir(), 'java-probe-'));
  writeFileSync(
    join(dir, 'java'),
    `#!/bin/sh\n[ "$1" = --describe-module ] && [ "$2" = jdk.compiler ] && exit ${status}\nexit 0\n`,
  );
  chmodSync(join(dir, 'java'), 0o755);
  process.env.PATH = `${dir}:${path}`;
};

afterEach(() => {
  process.env.PATH = path;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the Java check before DynamoDB Local starts', () => {
  it('fails with the JDK install command when java has no compiler (a JRE only)', () => {
    givenJava(1);

    expect(() => assertJava()).toThrow(
      new Error(
        'A Java 17+ JDK is required to run DynamoDB Local (its loopback launcher is compiled on first start). Install it with: sudo apt-get install -y openjdk-17-jdk-headless',
      ),
    );
  });

  it('passes when java has its compiler', () => {
    givenJava(0);

    expect(() => assertJava()).not.toThrow();
  });
});
