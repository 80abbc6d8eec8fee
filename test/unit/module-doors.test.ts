import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** The modules with one door: code outside each folder imports its `index.ts` and nothing else in it. */
const MODULES = ['shared/domain/check', 'shared/domain/verdict-feed'];
const SCANNED = ['shared', 'functions', 'infra'];

const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** A module specifier after `from`, a bare `import`, or inside `import(...)`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** Every import of `file` (static, re-export or dynamic) that enters a module other than through its door. */
const backDoors = (file: string, text: string): string[] =>
  [...text.matchAll(SPECIFIER)].flatMap(([, specifier = '']) => {
    if (!specifier.startsWith('.')) return [];
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
    const module = MODULES.find((folder) => target.startsWith(`${folder}/`));
    if (module === undefined || file.startsWith(`${module}/`) || target === `${module}/index.ts`) return [];
    return [`${file} imports ${specifier}`];
  });

describe('the check and the verdict feed', () => {
  it('are imported from outside only through their index.ts', () => {
    const found = SCANNED.flatMap(sourcesUnder).flatMap((file) =>
      backDoors(file, readFileSync(join(ROOT, file), 'utf8')),
    );

    expect(found).toEqual([]);
  });

  it('names the file and the import that goes around a door', () => {
    const text = [
      "import { replicatedIndex } from '../domain/verdict-feed/replica.ts';",
      "import { createChecker } from '../domain/check/index.ts';",
      "const engine = await import('../domain/check/engine.ts');",
    ].join('\n');

    expect(backDoors('shared/db/example.ts', text)).toEqual([
      'shared/db/example.ts imports ../domain/verdict-feed/replica.ts',
      'shared/db/example.ts imports ../domain/check/engine.ts',
    ]);
  });
});
