import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { ENTRIES } from '../../scripts/entries.mjs';
import { requireBuilt } from '../helpers/dist.js';

/*
 * A message tells its reader what to write: `must be a provider client (new ProviderClient({ ... }))`.
 * Each name a string of src/ shows as code a reader writes (`createX`, `new X`, `x(`) must be one
 * they can reach: an entry's export (read from its built declarations), a peer's export, a global,
 * or a method of an object payorch is given (a member declared in src/: `boss.createQueue`). A
 * renamed or imagined function fails here.
 */

const root = join(import.meta.dirname, '../..');
const { peerDependencies = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
const compilerOptions: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, noEmit: true, types: ['node'] };

const peerFiles = Object.keys(peerDependencies).flatMap((peer) => {
  const resolved = ts.resolveModuleName(peer, join(root, 'index.ts'), compilerOptions, ts.sys).resolvedModule;
  return resolved === undefined ? [] : [resolved.resolvedFileName];
});
requireBuilt(...ENTRIES.map(({ types }) => types));
const entryFiles = ENTRIES.map(({ types }) => join(root, types));
const program = ts.createProgram([...entryFiles, ...peerFiles], compilerOptions);
const checker = program.getTypeChecker();

/** What a reader can name: the entries' and the peers' exports, and the globals. */
const reachable = new Set<string>();
for (const file of [...entryFiles, ...peerFiles]) {
  const source = program.getSourceFile(file);
  const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (module !== undefined) for (const each of checker.getExportsOfModule(module)) reachable.add(each.name);
}
const anEntry = program.getSourceFile(entryFiles[0]!)!;
for (const each of checker.getSymbolsInScope(anEntry, ts.SymbolFlags.Value)) if (each.valueDeclaration?.getSourceFile().isDeclarationFile === true) reachable.add(each.name);

const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ts.createSourceFile(file, readFileSync(join(root, 'src', file), 'utf8'), ts.ScriptTarget.Latest, true));

/** Members declared in src/: the methods of what a user passes in (a pg-boss, a meter), typed structurally. */
const members = new Set<string>();
/** Each name a string shows as code, with where. */
const named: { name: string; where: string; text: string }[] = [];
// `createX`, `new X(`, or a call `someName(` / `SomeName(`, not after a dot (a member of something
// named before it); SQL's `ANY(` and prose's `a new API key` are neither.
const CODE_NAME = /(?<![.\w$])(?:new\s+([A-Z][\w$]*)\(|(create[A-Z][\w$]*)|([A-Za-z_$][\w$]*?[a-z][A-Z][\w$]*|[A-Z][a-z][\w$]*)\()/g;
for (const source of sources) {
  const visit = (node: ts.Node): void => {
    if ((ts.isPropertySignature(node) || ts.isMethodSignature(node) || ts.isMethodDeclaration(node) || ts.isPropertyDeclaration(node)) && ts.isIdentifier(node.name)) members.add(node.name.text);
    const text = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node) ? node.text : undefined;
    if (text !== undefined && !ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent)) {
      const where = `src/${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
      for (const match of text.matchAll(CODE_NAME)) named.push({ name: (match[1] ?? match[2] ?? match[3])!, where, text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

describe('the names the strings of src/ show as code', () => {
  test('are found (a scan that finds none is broken)', () => {
    expect(named.map(({ name }) => name)).toContain('ProviderClient');
    expect(reachable).toContain('createPostgresInbox');
    expect(reachable).toContain('AbortSignal');
  });

  test('each exist: exported by an entry or a peer, a global, or a method of what payorch is given', () => {
    const unknown = named.filter(({ name }) => !reachable.has(name) && !members.has(name));
    // Write the name a reader can import (`new ProviderClient({ ... })`), or export what the message names.
    expect(unknown.map(({ name, where, text }) => `${where}: ${name} in ${JSON.stringify(text)}`)).toEqual([]);
  });
});
