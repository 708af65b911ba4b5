import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ENTRIES } from './entries.mjs';
import { exampleTags, filesUnder, lineOf, markdownBlocks } from './snippet-sources.js';
import type { Snippet } from './snippet-sources.js';

/*
 * Every ```ts block of README.md and docs/**\/*.md, and every @example of the published
 * declarations (dist/**\/*.d.ts, reported at its line in src/), compiled as a user's module against the built package: `payorch`
 * and its subpaths resolve through this package.json's exports (a symlink in the cache), the
 * peers' types from node_modules, strict. A block gets nothing it does not write itself, so it
 * shows the reader everything it needs. Run by `npm run docs:snippets`, after `npm run build`.
 *
 * A one-line `@example` without a fence (`@example 30_000`, `@example new ProviderClient({ … })`)
 * is a sample value of what it documents: it is compiled as `const value: Owner['member'] = …`,
 * with payorch's exports and the peers' imported for it, and the reader's own names (`env`,
 * `logger`, `baseUrl`) declared as they have them. A name it calls or constructs must be one
 * payorch or a peer exports: a hover that shows a function nobody can import fails here.
 */

const root = join(import.meta.dirname, '..');
const cache = join(root, 'node_modules/.cache/snippets');

/** The ```ts block of each `@example` (a one-line sample value is checked by valueExamples). */
const exampleBlocks = (file: string): Snippet[] =>
  exampleTags(file).flatMap(({ fenced }) => (fenced !== undefined && ['', 'ts', 'typescript'].includes(fenced.language) ? [{ source: fenced.source, line: fenced.line, code: fenced.code }] : []));

const guides = ['README.md', ...filesUnder('docs', ['.md'])].flatMap((file) => markdownBlocks(file, ['ts', 'typescript']));
// An example is compiled as published (dist), and reported where it is written (src).
const written = new Map(filesUnder('src', ['.ts']).flatMap(exampleBlocks).map((snippet) => [snippet.code, snippet]));
// Each chunk's declarations appear once per format; the ESM declarations are enough.
const seen = new Set<string>();
const examples = filesUnder('dist', ['.d.ts'])
  .flatMap(exampleBlocks)
  .filter(({ code }) => !seen.has(code) && seen.add(code))
  .map((snippet) => written.get(snippet.code) ?? snippet);

/** What each entry exports, by name: where a value example's names are imported from. */
interface Export {
  readonly from: string;
  readonly value: boolean;
}
function exportsOf(modules: readonly { name: string; file: string }[]): Map<string, Export> {
  const program = ts.createProgram(
    modules.map(({ file }) => file),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, noEmit: true, types: [] },
  );
  const checker = program.getTypeChecker();
  const found = new Map<string, Export>();
  for (const { name, file } of modules) {
    const source = program.getSourceFile(file);
    const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (symbol === undefined) continue;
    for (const each of checker.getExportsOfModule(symbol)) {
      const target = each.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(each) : each;
      if (!found.has(each.name)) found.set(each.name, { from: name, value: (target.flags & ts.SymbolFlags.Value) !== 0 });
    }
  }
  return found;
}
const payorchExports = exportsOf(ENTRIES.map(({ name, types }) => ({ name, file: join(root, types) })));
const { peerDependencies = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
// A peer's types, resolved as a user's program resolves them (a file importing the peer).
const peerExports = exportsOf(
  Object.keys(peerDependencies).flatMap((peer) => {
    const resolved = ts.resolveModuleName(peer, join(root, 'index.ts'), { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }, ts.sys).resolvedModule;
    return resolved === undefined ? [] : [{ name: peer, file: resolved.resolvedFileName }];
  }),
);

interface ValueExample extends Snippet {
  /** `Owner['member']`, when the owner is a named interface or class that an entry exports. */
  readonly type: string | undefined;
  readonly owner: string;
}

/** The one-line `@example`s of a declaration file, each with the member it documents. */
function valueExamples(file: string): ValueExample[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: ValueExample[] = [];
  const visit = (node: ts.Node): void => {
    for (const doc of (node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []) {
      for (const tag of doc.tags ?? []) {
        const code = (ts.getTextOfJSDocComment(tag.comment) ?? '').trim();
        if (tag.tagName.text !== 'example' || code === '' || code.includes('```')) continue;
        const parent = node.parent;
        const member = (ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isMethodSignature(node) || ts.isMethodDeclaration(node)) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) ? node.name.text : undefined;
        // The bundler may rename a declaration (`Options$1`): the entry exports it by its own name.
        const ownerName = ts.isInterfaceDeclaration(parent) || ts.isClassDeclaration(parent) ? parent.name?.text.replace(/\$\d+$/, '') : undefined;
        const owner = ownerName === undefined || member === undefined ? (ts.getNameOfDeclaration(node as ts.Declaration)?.getText(source) ?? 'a declaration') : `${ownerName}.${member}`;
        // A generic owner takes any arguments: its example shows one use (`{ client }` of PostgreSQL's context).
        const generics = ts.isInterfaceDeclaration(parent) || ts.isClassDeclaration(parent) ? (parent.typeParameters ?? []).map(() => 'any') : [];
        const type = ownerName !== undefined && member !== undefined && payorchExports.has(ownerName) ? `${ownerName}${generics.length > 0 ? `<${generics.join(', ')}>` : ''}['${member}']` : undefined;
        found.push({ source: file, line: source.getLineAndCharacterOfPosition(tag.getStart(source)).line + 1, code, type, owner });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Where an example is written in src/: after its owner's declaration, else the dist/ line. */
function writtenAt(example: ValueExample): Pick<Snippet, 'source' | 'line'> {
  const owner = example.owner.split('.')[0] ?? '';
  for (const file of filesUnder('src', ['.ts'])) {
    const text = readFileSync(join(root, file), 'utf8');
    const declared = new RegExp(`(?:interface|class) ${owner}\\b`).exec(text);
    const at = declared === null ? -1 : text.indexOf(`@example ${example.code.split('\n')[0]}`, declared.index);
    if (at >= 0) return { source: file, line: lineOf(text, at) };
  }
  return example;
}

const valueSeen = new Set<string>();
const values = filesUnder('dist', ['.d.ts'])
  .flatMap(valueExamples)
  .filter(({ owner, code }) => !valueSeen.has(`${owner} ${code}`) && valueSeen.add(`${owner} ${code}`))
  .map((example) => ({ ...example, ...writtenAt(example) }));

/** The statement that checks a value example, inside a function so that `this` and `await` read as in a method. */
const valueStatement = (example: ValueExample): string => {
  const body = example.code.startsWith('await ') ? `${example.code};` : `const value${example.type === undefined ? '' : `: ${example.type}`} = ${example.code}\n;\nvoid value;`;
  return `export async function example(this: any): Promise<void> {\n${body}\n}\n`;
};

/** A parameter or binding that implicitly has an `any` type. */
const IMPLICIT_ANY_PARAMETER = new Set([7006, 7031]);

/** Diagnostics of a name the program does not have: `Cannot find name 'x'` and its variants. */
const UNKNOWN_NAME = new Set([2304, 2552, 2580, 2582, 2591, 2592, 18004]);

/**
 * The imports and declarations a value example needs: payorch's and the peers' names it uses
 * are imported, the other free names are the reader's (`declare const env: any`), unless it
 * calls or constructs them: then it names something nobody can import.
 */
function preludeOf(example: ValueExample, file: ts.SourceFile, diagnostics: readonly ts.Diagnostic[], problems: string[]): string {
  const needed = new Map<string, Export | 'reader'>();
  const owner = example.owner.split('.')[0] ?? '';
  const ownerExport = payorchExports.get(owner);
  if (example.type !== undefined && ownerExport !== undefined) needed.set(owner, ownerExport);
  const unknown = new Set(diagnostics.filter((each) => UNKNOWN_NAME.has(each.code)).map((each) => each.start));
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && unknown.has(node.getStart(file)) && !needed.has(node.text)) {
      const called = (ts.isCallExpression(node.parent) || ts.isNewExpression(node.parent)) && node.parent.expression === node;
      // A peer's name is imported only to be called (`new Pool(…)`): `trace` is the reader's, not bullmq's.
      const known = payorchExports.get(node.text) ?? (called ? peerExports.get(node.text) : undefined);
      if (known !== undefined) needed.set(node.text, known);
      else {
        if (called) problems.push(`${example.source}:${example.line}: the @example of ${example.owner} calls ${node.text}, which neither payorch nor a peer exports: show what a reader can import`);
        needed.set(node.text, 'reader');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...needed].map(([local, from]) => (from === 'reader' ? `declare const ${local}: any;` : `import ${from.value ? '' : 'type '}{ ${local} } from '${from.from}';`)).join('\n');
}

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  typeRoots: [join(root, 'node_modules/@types')],
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
  noEmit: true,
};

rmSync(cache, { recursive: true, force: true });
mkdirSync(join(cache, 'node_modules'), { recursive: true });
symlinkSync(root, join(cache, 'node_modules/payorch'), 'dir');
writeFileSync(join(cache, 'package.json'), '{ "type": "module" }\n');
const writeSnippets = (prefix: string, codes: readonly string[]): string[] =>
  codes.map((code, index) => {
    const name = join(cache, `${prefix}-${index}.ts`);
    // `export {}` makes a block without imports a module too, so blocks may reuse names.
    writeFileSync(name, `${code}\nexport {};\n`);
    return name;
  });

// The value examples are compiled once bare, to learn the names they use, then with them.
const problems: string[] = [];
const bare = writeSnippets('value', values.map(valueStatement));
const first = ts.createProgram(bare, compilerOptions);
const withNames = values.map((example, index) => {
  const file = first.getSourceFile(bare[index] ?? '');
  return file === undefined ? valueStatement(example) : `${preludeOf(example, file, first.getSemanticDiagnostics(file), problems)}\n${valueStatement(example)}`;
});
const snippets: readonly Snippet[] = [...guides, ...examples, ...values];
const names = [...writeSnippets('snippet', [...guides, ...examples].map(({ code }) => code)), ...writeSnippets('value', withNames)];
const program = ts.createProgram(names, compilerOptions);
problems.push(
  ...names.flatMap((name, index) => {
    const file = program.getSourceFile(name);
    const snippet = snippets[index];
    if (file === undefined || snippet === undefined) return [];
    // An example of a member no entry exports has no type to check it against, so its parameters have none either.
    const untyped = index >= guides.length + examples.length && (snippet as ValueExample).type === undefined;
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].filter((each) => !(untyped && IMPLICIT_ANY_PARAMETER.has(each.code)));
    return diagnostics.map((diagnostic) => {
      const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      // A value example's lines are its prelude's and its function's: report its own line.
      const at = index < guides.length + examples.length ? snippet.line + line : snippet.line;
      return `${snippet.source}:${at}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  }),
);

if (problems.length > 0) {
  console.error(`${problems.join('\n')}\n\n${problems.length} problem(s) in the code blocks (checked ${snippets.length}; compiled in ${relative(root, cache)})`);
  process.exit(1);
}
console.log(`${guides.length} guide blocks, ${examples.length} @example blocks and ${values.length} one-line @example values compile against the built package`);
