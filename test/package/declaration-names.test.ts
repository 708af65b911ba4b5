import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { ENTRIES } from '../../scripts/entries.mjs';
import { repoRoot, requireBuilt } from '../helpers/dist.js';

/*
 * What the declaration bundler (tsup's dts build) warns of, checked on what it wrote: a public
 * declaration that names a type no entry exports. A consumer meets that type (in a hover, an
 * error, a base class) and cannot import it; where its own declarations must spell it out
 * (declaration: true), TypeScript stops with TS2742. And a member marked `@internal` is left out
 * of the published declarations (stripInternal): a consumer could otherwise call what the
 * reference does not show and no release promises to keep.
 */

const entries = ENTRIES.flatMap((each) => [each.types, each.ctypes]);
requireBuilt(...entries);

const dist = join(repoRoot, 'dist');
const declarationFiles = readdirSync(dist, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.d.ts') || file.endsWith('.d.cts'))
  .map((file) => join(dist, file));

const program = ts.createProgram({
  rootNames: entries.map((file) => join(repoRoot, file)),
  // No DOM and no @types/node: only names declared in dist/ are followed, and those libraries were
  // most of what the compiler read.
  options: { noEmit: true, strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [], lib: ['lib.es2023.d.ts'] },
});
const checker = program.getTypeChecker();

const resolved = (symbol: ts.Symbol): ts.Symbol => ((symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol);
const inDist = (declaration: ts.Declaration): boolean => declaration.getSourceFile().fileName.startsWith(dist + sep);

/** Every name some entry exports, as the symbol it stands for: importable by a consumer. */
const exported = new Set<ts.Symbol>();
for (const file of entries) {
  const source = program.getSourceFile(join(repoRoot, file));
  const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${file} is not a module`);
  for (const symbol of checker.getExportsOfModule(module)) exported.add(resolved(symbol));
}

/** The identifier a consumer would import to spell `name` (`z` of `z.ZodType`). */
function leftmost(name: ts.EntityName | ts.Expression): ts.Identifier | undefined {
  if (ts.isIdentifier(name)) return name;
  if (ts.isQualifiedName(name)) return leftmost(name.left);
  if (ts.isPropertyAccessExpression(name)) return leftmost(name.expression);
  return undefined;
}

/** The names the declarations of `symbol` refer to, as types, base classes or `typeof`. */
function referenced(symbol: ts.Symbol): ts.Symbol[] {
  const found: ts.Symbol[] = [];
  const visit = (node: ts.Node): void => {
    const name = ts.isTypeReferenceNode(node)
      ? node.typeName
      : ts.isExpressionWithTypeArguments(node)
        ? node.expression
        : ts.isTypeQueryNode(node)
          ? node.exprName
          : undefined;
    const identifier = name === undefined ? undefined : leftmost(name);
    const target = identifier === undefined ? undefined : checker.getSymbolAtLocation(identifier);
    if (target !== undefined) found.push(resolved(target));
    ts.forEachChild(node, visit);
  };
  for (const declaration of symbol.declarations ?? []) if (inDist(declaration)) visit(declaration);
  return found;
}

/*
 * Names the declarations reach that no entry exports, on purpose (src/index.ts says why; the
 * reference lists them in typedoc.config.mjs' intentionallyNotExported): the building blocks of
 * the zod schemas' types, which a body's type spells out field by field; the tables and value
 * unions those types are computed from; the generic base of the three third-party channels; the
 * parts of an answer (Customer, SiteRef) that its type names by field. A name leaves this list by
 * being exported; a name joins it only with such a reason.
 */
const BUILDING_BLOCKS = new Set([
  // zod object shapes and helpers of the request, answer and callback types
  'LenientObject', 'LenientShape', 'OptionalOrNull', 'EnvelopeShape', 'RecordCoreShape', 'RecordEchoShape', 'DepositStatusShape',
  'EibanDepositRecordShape', 'IbanWithdrawalRecordShape', 'ManualDepositRecordShape', 'IbanWithdrawalShape', 'EibanWithdrawalShape',
  'ManualWithdrawalShape', 'PaymentAmountShape', 'PaymentParamsShape', 'CustomerParamsShape', 'UnshownDepositParamsShape',
  'iban', 'positiveAmount', 'responseNumber', 'successFlag',
  // the callback field tables the callback types are computed from
  'CallbackSchema', 'ShapeOf', 'FieldSchema', 'FieldSpec', 'FieldTable', 'FieldType', 'FIELD_SCHEMAS',
  'CREDIT_CARD_CALLBACK_FIELDS', 'DEALER_CREDIT_CARD_CALLBACK_FIELDS', 'DEPOSIT_CALLBACK_FIELDS', 'UNKNOWN_CALLBACK_FIELDS', 'WITHDRAWAL_CALLBACK_FIELDS',
  // status tables and per-kind status unions: CallbackStatus<K> and TransferEndStatus name them
  'CALLBACK_STATUSES', 'TRANSFER_END_STATUSES', 'DepositCallbackStatus', 'WithdrawalCallbackStatus', 'CreditCardCallbackStatus', 'DealerCreditCardCallbackStatus',
  // parts of answers, named by their fields
  'Customer', 'SiteRef',
  // the generic channel BankChannel, CryptoChannel and WalletChannel name the uses of
  'ThirdPartyChannel',
  // the structural parts of MeterLike and SpanLike that the user's meter and tracer already have
  'InstrumentOptionsLike', 'MetricAttributesLike', 'SpanAttributeValue',
]);

/*
 * The bundler's own check, on its output: each name an entry's declarations import from a shared
 * declaration file is exported by some entry, under a name a consumer can import.
 */
test('every name an entry imports from a shared declaration file is exported by some entry', () => {
  const missing: string[] = [];
  for (const file of entries) {
    const source = program.getSourceFile(join(repoRoot, file));
    for (const statement of source?.statements ?? []) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || !statement.moduleSpecifier.text.startsWith('.')) continue;
      const bindings = statement.importClause?.namedBindings;
      if (bindings === undefined || !ts.isNamedImports(bindings)) continue;
      for (const element of bindings.elements) {
        const symbol = checker.getSymbolAtLocation(element.name);
        if (symbol === undefined || !exported.has(resolved(symbol))) missing.push(`${file}: ${element.name.text}`);
      }
    }
  }
  expect(missing).toEqual([]);
});

test('every type a public declaration names is exported by some entry, or is a building block listed above', () => {
  const unexported = new Map<string, string>();
  const seen = new Set<ts.Symbol>(exported);
  const queue = [...exported];
  for (let symbol = queue.shift(); symbol !== undefined; symbol = queue.shift()) {
    for (const target of referenced(symbol)) {
      const declarations = (target.declarations ?? []).filter(inDist);
      if (declarations.length === 0 || (target.flags & ts.SymbolFlags.TypeParameter) !== 0 || seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
      if (!exported.has(target)) {
        const where = relative(repoRoot, declarations[0]?.getSourceFile().fileName ?? '');
        unexported.set(`${target.name} (${where})`, symbol.name);
      }
    }
  }
  const blocks = [...unexported.keys()].map((key) => key.slice(0, key.indexOf(' ')));
  const unexplained = Object.fromEntries([...unexported].filter(([key]) => !BUILDING_BLOCKS.has(key.slice(0, key.indexOf(' ')))));
  expect(unexplained, 'unexported type (where declared): the declaration that names it').toEqual({});
  expect([...BUILDING_BLOCKS].filter((name) => !blocks.includes(name)), 'names the declarations no longer reach: drop them from BUILDING_BLOCKS').toEqual([]);
  // The walk found the entries' names: an empty program would pass the check above.
  expect(exported.size).toBeGreaterThan(100);
});

test('no published declaration carries a member marked @internal', () => {
  const marked = declarationFiles.filter((file) => readFileSync(file, 'utf8').includes('@internal')).map((file) => relative(repoRoot, file));
  expect(marked).toEqual([]);
  expect(declarationFiles.length).toBeGreaterThanOrEqual(entries.length);
});
