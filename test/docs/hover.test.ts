import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/*
 * What an editor shows on hover is TypeScript's quick info: the JSDoc of the property's declaration,
 * carried from the schema's object literal through z.infer's mapped types. One language service
 * over one small file reads it as an editor would; the walk below checks every field of every
 * exported schema type, so a field added without a doc comment fails here.
 */
const root = join(import.meta.dirname, '../..');
const sampleName = join(root, 'test/docs/__hover-sample.ts');
const sample = `import type { EibanAccount, ManualDeposit, VerifiedCallback } from '../../src/index.js';
declare const answer: ManualDeposit;
declare const callback: VerifiedCallback;
declare const eiban: EibanAccount;
export const url = answer.data.payment_url;
export const amount = callback.kind === 'deposit' ? callback.payload.amount : 0;
export const wallet = eiban.wallet_id;
export const balance = eiban.balance;
export const expires = answer.data.expires_at;
`;

const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
if (config === undefined) throw new Error('tsconfig.json did not parse');
const host: ts.LanguageServiceHost = {
  getCompilationSettings: () => config.options,
  getScriptFileNames: () => [sampleName],
  getScriptVersion: () => '1',
  getScriptSnapshot: (name) => {
    const text = name === sampleName ? sample : ts.sys.readFile(name);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  },
  getCurrentDirectory: () => root,
  getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
  fileExists: (name) => name === sampleName || ts.sys.fileExists(name),
  readFile: (name) => (name === sampleName ? sample : ts.sys.readFile(name)),
  readDirectory: (path, extensions, exclude, include, depth) => ts.sys.readDirectory(path, extensions, exclude, include, depth),
  directoryExists: (name) => ts.sys.directoryExists(name),
  getDirectories: (name) => ts.sys.getDirectories(name),
};
const service = ts.createLanguageService(host);

const hover = (expression: string): string => {
  const position = sample.indexOf(expression) + expression.length - 1;
  const info = service.getQuickInfoAtPosition(sampleName, position);
  return ts.displayPartsToString(info?.documentation);
};

// The files whose exported types are wire shapes: answers, callbacks and request bodies.
const SCHEMA_FILES = /\/src\/(provider|dealer)\/.+\.ts$|\/src\/core\/wire\.ts$|\/src\/callbacks\/schemas\.ts$/;

/** Every property of the exported schema types, recursively, whose declaration has no doc comment. */
const undocumentedFields = (): string[] => {
  const program = service.getProgram();
  if (program === undefined) throw new Error('no program');
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(join(root, 'src/index.ts'));
  const module = entry && checker.getSymbolAtLocation(entry);
  if (module === undefined) throw new Error('src/index.ts has no module symbol');
  const missing = new Set<string>();
  const seen = new Set<ts.Type>();
  const walk = (type: ts.Type, path: string): void => {
    if (seen.has(type)) return;
    seen.add(type);
    const parts = type.isUnionOrIntersection() ? type.types : [type];
    for (const part of parts) {
      if (checker.isArrayType(part)) {
        const [element] = checker.getTypeArguments(part as ts.TypeReference);
        if (element) walk(element, `${path}[]`);
        continue;
      }
      if (!(part.flags & ts.TypeFlags.Object) || part.getCallSignatures().length > 0) continue;
      for (const property of part.getProperties()) {
        const field = `${path}.${property.name}`;
        if (property.getDocumentationComment(checker).length === 0) missing.add(field);
        walk(checker.getNonNullableType(checker.getTypeOfSymbol(property)), field);
      }
    }
  };
  let walked = 0;
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    // A schema type is a zod schema and the type of the same name; VerifiedCallback wraps the callback ones.
    const isSchemaType = symbol.flags & ts.SymbolFlags.Variable || exported.name === 'VerifiedCallback';
    if (!isSchemaType || !(symbol.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface))) continue;
    const declaration = symbol.declarations?.find((node) => ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node));
    if (declaration === undefined || !SCHEMA_FILES.test(declaration.getSourceFile().fileName)) continue;
    walked += 1;
    walk(checker.getDeclaredTypeOfSymbol(symbol), exported.name);
  }
  // Guards the walk itself: if it found no types, an empty list would prove nothing.
  expect(walked).toBeGreaterThan(40);
  return [...missing].sort();
};

describe('hovering an answer or callback field shows its doc comment', () => {
  // Building the program (the whole of src/) is the slow part; done once, outside the per-test timeout.
  beforeAll(() => void service.getProgram(), 60_000);

  it.each([
    ['answer.data.payment_url', 'payment page'],
    ['callback.payload.amount', 'final approved or rejected amount'],
    ['eiban.wallet_id', 'Identifies the account'],
    ['eiban.balance', '"1500.00"'],
    ['answer.data.expires_at', 'YYYY-MM-DD HH:MM:SS'],
  ])('%s shows its description', (expression, text) => {
    expect(hover(expression)).toContain(text);
  });

  it('every field of every exported schema type has a doc comment', () => {
    expect(undocumentedFields()).toEqual([]);
  });
});
