import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/*
 * Every ```ts block of README.md and docs/**\/*.md, and every @example of the published
 * declarations (dist/**\/*.d.ts, reported at its line in src/), compiled as a user's module against the built package: `payorch`
 * and its subpaths resolve through this package.json's exports (a symlink in the cache), the
 * peers' types from node_modules, strict. A block gets nothing it does not write itself, so it
 * shows the reader everything it needs. Run by `npm run docs:snippets`, after `npm run build`.
 */

const root = join(import.meta.dirname, '..');
const cache = join(root, 'node_modules/.cache/snippets');

interface Snippet {
  readonly source: string;
  /** The source line of the block's first line of code. */
  readonly line: number;
  readonly code: string;
}

const filesUnder = (directory: string, suffix: string): string[] =>
  readdirSync(join(root, directory), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(suffix) && !name.startsWith('api/'))
    .map((name) => join(directory, name));

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

function markdownBlocks(file: string): Snippet[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/^```(?:ts|typescript)[ \t]*\n([\s\S]*?)^```/gm)].map((match) => ({ source: file, line: lineOf(text, match.index) + 1, code: match[1] ?? '' }));
}

/** The code of each `@example` tag: the fenced block, or the tag's text when it has no fence. */
function exampleBlocks(file: string): Snippet[] {
  const text = readFileSync(join(root, file), 'utf8');
  const snippets: Snippet[] = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const lines = comment[0].split('\n').map((line) => line.replace(/^\s*\/?\*+\/?\s?/, ''));
    lines.forEach((line, index) => {
      if (!line.startsWith('@example')) return;
      const rest = lines.slice(index + 1);
      const end = rest.findIndex((each) => each.startsWith('@'));
      const body = (end < 0 ? rest : rest.slice(0, end)).join('\n');
      const fenced = /```(?:ts|typescript)?\n([\s\S]*?)```/.exec(body);
      // A one-line value after the tag (`@example 30_000`) is an option's sample value, not a program.
      if (fenced === null) return;
      const first = lineOf(text, comment.index) + index + 1 + lineOf(body, fenced.index);
      snippets.push({ source: file, line: first, code: fenced[1] ?? '' });
    });
  }
  return snippets;
}

const guides = ['README.md', ...filesUnder('docs', '.md')].flatMap(markdownBlocks);
// An example is compiled as published (dist), and reported where it is written (src).
const written = new Map(filesUnder('src', '.ts').flatMap(exampleBlocks).map((snippet) => [snippet.code, snippet]));
// Each chunk's declarations appear once per format; the ESM declarations are enough.
const seen = new Set<string>();
const examples = filesUnder('dist', '.d.ts')
  .flatMap(exampleBlocks)
  .filter(({ code }) => !seen.has(code) && seen.add(code))
  .map((snippet) => written.get(snippet.code) ?? snippet);
const snippets = [...guides, ...examples];

rmSync(cache, { recursive: true, force: true });
mkdirSync(join(cache, 'node_modules'), { recursive: true });
symlinkSync(root, join(cache, 'node_modules/payorch'), 'dir');
writeFileSync(join(cache, 'package.json'), '{ "type": "module" }\n');
const names = snippets.map((snippet, index) => {
  const name = join(cache, `snippet-${index}.ts`);
  // `export {}` makes a block without imports a module too, so blocks may reuse names.
  writeFileSync(name, `${snippet.code}\nexport {};\n`);
  return name;
});

const options: ts.CompilerOptions = {
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
const program = ts.createProgram(names, options);
const problems = names.flatMap((name, index) => {
  const file = program.getSourceFile(name);
  const snippet = snippets[index];
  if (file === undefined || snippet === undefined) return [];
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) => {
    const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    return `${snippet.source}:${snippet.line + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
});

if (problems.length > 0) {
  console.error(`${problems.join('\n')}\n\n${problems.length} problem(s) in the code blocks (checked ${snippets.length}; compiled in ${relative(root, cache)})`);
  process.exit(1);
}
console.log(`${guides.length} guide blocks and ${examples.length} @example blocks compile against the built package`);
