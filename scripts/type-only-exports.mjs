// Runs after tsup (npm run build). tsup's declaration bundler drops the `type` of a name exported
// type-only when its declaration sits in a shared chunk: `export type { Welcome }` in
// src/index.ts came out as `export { Welcome }`, and Welcome is also a zod schema (a value), so
// `Welcome.parse()` imported from 'payorch' compiled and was undefined at run time. Each entry's
// declarations are rewritten so that a name its built module does not export at run time is
// exported with `type`: the compiler then refuses it as a value, as the source does.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const require = createRequire(import.meta.url);

/** Inserts `type ` before each exported name of `text` that `values` lacks; returns the new text and the names. */
function markTypeOnly(text, values) {
  const file = ts.createSourceFile('entry.d.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const edits = [];
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement) || statement.isTypeOnly || !statement.exportClause || !ts.isNamedExports(statement.exportClause)) continue;
    for (const specifier of statement.exportClause.elements) {
      if (!specifier.isTypeOnly && !values.has(specifier.name.text)) edits.push({ at: specifier.getStart(file), name: specifier.name.text });
    }
  }
  let out = text;
  for (const { at } of [...edits].reverse()) out = `${out.slice(0, at)}type ${out.slice(at)}`;
  return { text: out, names: edits.map(({ name }) => name) };
}

// The entries are package.json's `exports`: each condition's declarations beside its module.
const root = join(import.meta.dirname, '..');
const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const conditions = Object.values(exports).flatMap((target) => (typeof target === 'object' ? [['import', target.import], ['require', target.require]] : []));
let marked = 0;
for (const [condition, { types, default: module }] of conditions) {
  // A missing file throws: every entry of the package must have been built.
  const text = readFileSync(join(root, types), 'utf8');
  const values = Object.keys(condition === 'import' ? await import(pathToFileURL(join(root, module)).href) : require(join(root, module)));
  const result = markTypeOnly(text, new Set(values));
  if (result.names.length === 0) continue;
  writeFileSync(join(root, types), result.text);
  marked += result.names.length;
}
console.log(`declarations: ${marked} names marked type-only where the module exports no value of that name`);
