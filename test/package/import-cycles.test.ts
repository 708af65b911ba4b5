import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { ENTRIES } from '../../scripts/entries.mjs';

// A module that reaches itself through its imports cannot be read, moved or split on its own.
// Type imports count: they tie two files together for a reader as much as value imports do.
const src = join(import.meta.dirname, '../../src');

function modules(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The src modules `file` imports or re-exports, statically or with `import()`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map(([, specifier]) => specifier!);
  return [...new Set(specifiers.map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))))];
}

/** Every cycle of `graph` (each module to those it imports), each starting at its first module in sorted order. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found = new Set<string>();
  const done = new Set<string>();
  const visit = (module: string, path: readonly string[]): void => {
    const at = path.indexOf(module);
    if (at !== -1) {
      const cycle = path.slice(at);
      const start = cycle.indexOf([...cycle].sort()[0]!);
      found.add(JSON.stringify([...cycle.slice(start), ...cycle.slice(0, start)]));
      return;
    }
    if (done.has(module)) return;
    for (const target of graph.get(module) ?? []) visit(target, [...path, module]);
    done.add(module);
  };
  for (const module of [...graph.keys()].sort()) visit(module, []);
  return [...found].map((cycle) => JSON.parse(cycle) as string[]);
}

test('no module of src reaches itself through its imports, type imports included', () => {
  const files = modules(src);
  expect(files.length).toBeGreaterThan(50);
  const graph = new Map(files.map((file) => [relative(src, file), importsOf(file).map((target) => relative(src, target))]));
  expect(graph.get('errors/api-error.ts')).toEqual(['errors/call-message.ts', 'errors/error.ts', 'errors/printable.ts']);
  expect(cycles(graph), 'import cycles: move what both modules need into a third that imports neither').toEqual([]);
});

test('the cycle finder finds every cycle of a graph, and nothing in a graph without one', () => {
  const graph = new Map([
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['a', ['b']],
    ['d', ['d', 'e']],
    ['e', []],
  ]);
  expect(cycles(graph)).toEqual([['a', 'b', 'c'], ['d']]);
  expect(cycles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
});

// The one exception: the resources' base class, which the clients' published declarations extend,
// is exported as a type, with every member `@internal` and left out of the declarations.
const PUBLIC_BASES = new Set(['internal/resource.ts']);

// src/core is what the entries export; src/internal is what no user sees. The public pieces must
// not lean on the machinery, or a reader of a public type is sent through the transport.
test('src/core imports only src/core and src/errors, and no entry point exports a name of src/internal', () => {
  const files = modules(src);
  const outOfLayer = files
    .filter((file) => relative(src, file).startsWith('core/'))
    .flatMap((file) => importsOf(file).map((target) => [relative(src, file), relative(src, target)] as const))
    .filter(([, target]) => !target.startsWith('core/') && !target.startsWith('errors/'));
  expect(outOfLayer, 'src/core imports outside src/core and src/errors: move the piece into src/core, or the import out of it').toEqual([]);
  const entries = ENTRIES.map((each) => relative(src, join(src, '..', each.source)));
  const reExports = entries.flatMap((entry) =>
    [...readFileSync(join(src, entry), 'utf8').matchAll(/^export\b[^;]*?from\s*'(\.[^']+)'/gm)]
      .map(([, specifier]) => relative(src, resolve(dirname(join(src, entry)), specifier!.replace(/\.js$/, '.ts'))))
      .filter((target) => target.startsWith('internal/') && !PUBLIC_BASES.has(target))
      .map((target) => `${entry} → ${target}`),
  );
  expect(reExports, 'entries that re-export src/internal: move what users see into src/core').toEqual([]);
});
