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

/** A declaration at the top level of a file (formatted code starts no other line with one). */
const TOP_LEVEL = /^(?:export\s+)?(let|var|const)\s+([A-Za-z_$][\w$]*)/gm;
const MUTATORS = 'set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin';

/** Whether `text` assigns to `name` (or to a property or an element of it, at any depth) or calls a mutating method on it. */
const isChanged = (name: string, text: string): boolean => {
  const target = `(?<![\\w$.])(?<!\\b(?:const|let|var)\\s+)${name.replace(/\$/g, '\\$')}(?:\\.[\\w$]+|\\[[^\\]\\n]*\\])*`;
  return [
    `${target}\\s*(?:\\*\\*|<<|>>>?|\\?\\?|&&|\\|\\||[-+*/%&|^])?=(?!=)`,
    `(?:\\+\\+|--)${target}|${target}(?:\\+\\+|--)`,
    `${target}\\.(?:${MUTATORS})\\(`,
  ].some((pattern) => new RegExp(pattern).test(text));
};

/** The module-level state of a file: every top-level `let` or `var`, and every top-level `const` the file changes. */
const moduleState = (file: string, text: string): string[] =>
  [...text.matchAll(TOP_LEVEL)].flatMap(([, kind, name = '']) =>
    kind !== 'const' || isChanged(name, text) ? [`${file}: ${name}`] : [],
  );

/** The state the check still keeps at module level, each a memo of its own; anything else fails. */
const KEPT = [
  // The hashes of the last check's keys: the index's and the lists' lookups of one check share them.
  'shared/domain/check/key-table.ts: recent',
  // The platform rules, a constant table built on first use instead of at every cold start.
  'shared/domain/check/platforms.ts: rules',
];

describe('the check module', () => {
  it('keeps no module-level state beyond its two memos: its ports and its suffix data are passed in', () => {
    const found = sourcesUnder('shared/domain/check').flatMap((file) =>
      moduleState(file, readFileSync(join(ROOT, file), 'utf8')),
    );

    expect(found.sort()).toEqual([...KEPT].sort());
  });

  it('names every top-level let and every top-level object, Map or Set the file changes', () => {
    const text = [
      'const CHAR = { dot: 0x2e } as const;',
      "const SCHEMES = new Set(['http']);",
      'let count = 0;',
      'const cache = new Map<string, number>();',
      'const installed: { source?: string } = {};',
      'const byLength: string[][] = [];',
      'export const lookup = (host: string) => {',
      '  if (host.charCodeAt(0) === CHAR.dot || !SCHEMES.has(host)) return count;',
      '  cache.set(host, host.length);',
      '  installed.source ??= host;',
      '  byLength[host.length] = [host];',
      '  return count;',
      '};',
    ].join('\n');

    expect(moduleState('shared/domain/check/example.ts', text)).toEqual([
      'shared/domain/check/example.ts: count',
      'shared/domain/check/example.ts: cache',
      'shared/domain/check/example.ts: installed',
      'shared/domain/check/example.ts: byLength',
    ]);
  });
});
