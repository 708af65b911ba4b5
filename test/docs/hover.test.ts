import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packed } from '../helpers/packed.js';

/*
 * What an editor shows on hover is TypeScript's quick info. It is read here as a user's editor
 * reads it: from the PACKED package (`npm pack`, unpacked into a temp project's node_modules), by
 * TypeScript 6's language service (TypeScript 7's package has none), at the places code is written:
 * an object literal passed to a client method, a handler's payload, a `for await` record, an
 * error's `outcome`. Declarations that lose a field's doc comment on the way into dist/ fail here;
 * the walk then checks every field of every exported schema type of the packed declarations.
 */
const root = join(import.meta.dirname, '../..');
let project = '';
let sampleName = '';

const sample = `import { DealerClient, PayorchError, ProviderClient, createCallbackReceiver } from 'payorch';
declare const provider: ProviderClient;
declare const dealer: DealerClient;
declare const error: PayorchError;
export async function run(): Promise<void> {
  await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
  await provider.manual.startWithdrawal({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 100, iban: 'TR330006100519786457841326' });
  const { data } = await provider.manual.startDeposit({ fullname: 'Ada', username: 'ada', user_id: 'u-2', amount: 300 });
  console.log(data.payment_url, data.expires_at);
  await dealer.transactions.list({ wallet_id: 'W-1', start_date: '2026-11-01', end_date: '2026-11-03' });
  for await (const record of dealer.transactions.iterate({ wallet_id: 'W-1', start_date: '2026-11-01', end_date: '2026-11-30' })) console.log(record.senderIban);
  const receiver = createCallbackReceiver({ apiKey: 'k', secretKey: 's' });
  receiver.on('deposit.completed', (callback) => console.log(callback.payload.amount, callback.payload.tracking_code, callback.payload.fullname));
  receiver.on('withdrawal', (callback) => console.log(callback.payload.iban));
  console.log(error.outcome);
}
`;

let service: ts.LanguageService;

/** The hover at the `nth` occurrence (from 1) of `text` in the sample, at `text`'s last character. */
function hover(text: string, nth = 1): { readonly display: string; readonly documentation: string } {
  let position = -1;
  for (let seen = 0; seen < nth; seen++) {
    position = sample.indexOf(text, position + 1);
    if (position < 0) throw new Error(`"${text}" occurs fewer than ${nth} times in the sample`);
  }
  const info = service.getQuickInfoAtPosition(sampleName, position + text.length - 1);
  return { display: ts.displayPartsToString(info?.displayParts), documentation: ts.displayPartsToString(info?.documentation) };
}

/** The newest modification time of a file under `directory`. */
function newest(directory: string): number {
  return Math.max(...readdirSync(directory, { recursive: true }).map((file) => statSync(join(directory, String(file))).mtimeMs));
}

beforeAll(async () => {
  // dist/ is what npm pack takes: declarations older than src/ would prove nothing about it.
  const built = (() => {
    try {
      return statSync(join(root, 'dist/index.d.ts')).mtimeMs;
    } catch {
      return 0;
    }
  })();
  if (built < newest(join(root, 'src'))) throw new Error('dist/index.d.ts is missing or older than src/: run npm run build (this test reads the packed declarations)');
  const { tarball } = await packed();
  project = mkdtempSync(join(tmpdir(), 'payorch-hover-'));
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, 'payorch'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', join(modules, 'payorch'), '--strip-components=1']);
  // The package's own dependencies, as npm would install them beside it.
  for (const dependency of ['zod', 'ky']) symlinkSync(join(root, 'node_modules', dependency), join(modules, dependency), 'dir');
  sampleName = join(project, 'sample.ts');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    types: [],
    noEmit: true,
  };
  const packageJson = JSON.stringify({ name: 'hover-sample', type: 'module' });
  const read = (name: string): string | undefined => (name === sampleName ? sample : name === join(project, 'package.json') ? packageJson : ts.sys.readFile(name));
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [sampleName],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const text = read(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => project,
    getDefaultLibFileName: (given) => ts.getDefaultLibFilePath(given),
    fileExists: (name) => read(name) !== undefined,
    readFile: read,
    readDirectory: (path, extensions, exclude, include, depth) => ts.sys.readDirectory(path, extensions, exclude, include, depth),
    directoryExists: (name) => ts.sys.directoryExists(name),
    getDirectories: (name) => ts.sys.getDirectories(name),
    realpath: (name) => ts.sys.realpath?.(name) ?? name,
  };
  service = ts.createLanguageService(host);
  // The sample must compile against the packed types, or the hovers below would prove nothing.
  const diagnostics = service.getSemanticDiagnostics(sampleName).concat(service.getSyntacticDiagnostics(sampleName));
  expect(diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))).toEqual([]);
}, 120_000);

afterAll(() => {
  if (project !== '') rmSync(project, { recursive: true, force: true });
});

describe('hovering where the merchant writes code, against the packed declarations', () => {
  it.each([
    // [what is hovered, which occurrence, what its doc must say]
    ['amount', 1, ['TRY', 'at least 1', 'spec 4.1']],
    ['user_id', 1, ['identifier in your system', 'not blank', 'spec 2.3']],
    ['fullname', 1, ["customer's full name", 'not blank', 'spec 2.3']],
    ['iban', 1, ['15 to 34 characters', 'spec 4.6']],
    ['start_date', 1, ['YYYY-MM-DD', 'at most 3 days after it', 'spec 4.13']],
    ['end_date', 1, ['at most 3 days after `start_date`', 'spec 4.13']],
    ['payment_url', 1, ['payment page', 'spec 4.5']],
    ['expires_at', 1, ['YYYY-MM-DD HH:MM:SS', 'spec 2.4']],
    ['senderIban', 1, ["sender's IBAN", 'spec 2.7']],
    ['payload.amount', 1, ['final approved or rejected amount', 'not covered by the hash', 'spec 6.2']],
    ['payload.fullname', 1, ["customer's full name", 'not covered by the hash', 'spec 6.2']],
    ['payload.tracking_code', 1, ['the hash covers it', 'spec 5.3']],
    ['payload.iban', 1, ["recipient's IBAN", 'not covered by the hash', 'spec 6.3']],
  ] as const)('%s (occurrence %s) shows its meaning, unit or limits, and spec section', (text, nth, expected) => {
    const { documentation } = hover(text, nth);
    for (const part of expected) expect(documentation.toLowerCase()).toContain(part.toLowerCase());
  });

  it('error.outcome shows its three values and what each means without a second hover', () => {
    const { display, documentation } = hover('error.outcome');
    expect(display).toMatch(/^\(property\) PayorchError\.outcome: "\w+" \| "\w+" \| "\w+"$/);
    for (const value of ['"not_sent"', '"refused"', '"unknown"']) expect(display).toContain(value);
    for (const meaning of ['`not_sent`: nothing reached the service', '`refused`: the service answered with a refusal', '`unknown`: it may have been processed']) expect(documentation).toContain(meaning);
  });
});

/** Every property of the packed package's exported schema types, recursively, whose declaration has no doc comment. */
function undocumentedFields(): { walked: number; missing: string[]; unsignedWithoutWarning: string[]; withoutSection: string[] } {
  const program = service.getProgram();
  if (program === undefined) throw new Error('no program');
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(join(project, 'node_modules/payorch/dist/index.d.ts'));
  const module = entry && checker.getSymbolAtLocation(entry);
  if (module === undefined) throw new Error('the packed dist/index.d.ts has no module symbol');
  const missing = new Set<string>();
  const unsigned = new Set<string>();
  const withoutSection = new Set<string>();
  const seen = new Set<ts.Type>();
  const walk = (type: ts.Type, path: string, callback: boolean): void => {
    if (seen.has(type)) return;
    seen.add(type);
    const parts = type.isUnionOrIntersection() ? type.types : [type];
    for (const part of parts) {
      if (checker.isArrayType(part)) {
        const [element] = checker.getTypeArguments(part as ts.TypeReference);
        if (element) walk(element, `${path}[]`, callback);
        continue;
      }
      if (!(part.flags & ts.TypeFlags.Object) || part.getCallSignatures().length > 0) continue;
      for (const property of part.getProperties()) {
        const field = `${path}.${property.name}`;
        const doc = ts.displayPartsToString(property.getDocumentationComment(checker));
        if (doc === '') missing.add(field);
        if (doc !== '' && !/spec \d/.test(doc)) withoutSection.add(field);
        const signed = ['tracking_code', 'status', 'timestamp', 'hash'].includes(property.name);
        if (callback && !signed && !doc.toLowerCase().includes('not covered by the hash')) unsigned.add(field);
        walk(checker.getNonNullableType(checker.getTypeOfSymbol(property)), field, false);
      }
    }
  };
  let walked = 0;
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    // A schema type is a zod schema and the type of the same name.
    if (!(symbol.flags & ts.SymbolFlags.Variable) || !(symbol.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface))) continue;
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    if (!(type.flags & ts.TypeFlags.Object) && !type.isUnionOrIntersection()) continue;
    walked += 1;
    walk(type, exported.name, /Callback$/.test(exported.name) && exported.name !== 'SignedCallbackFields');
  }
  return { walked, missing: [...missing].sort(), unsignedWithoutWarning: [...unsigned].sort(), withoutSection: [...withoutSection].sort() };
}

describe('the packed declarations document every field', () => {
  it('every field of every exported schema type has a doc comment naming its spec section, and every callback field the hash does not cover says so', () => {
    const { walked, missing, unsignedWithoutWarning, withoutSection } = undocumentedFields();
    // Guards the walk itself: if it found no types, an empty list would prove nothing.
    expect(walked).toBeGreaterThan(40);
    expect(missing, 'fields without a doc comment in the packed declarations: document each in its schema (src/), then npm run build').toEqual([]);
    expect(unsignedWithoutWarning, 'callback fields the hash does not cover whose doc does not say so: say it in the field table (src/webhooks/payload.ts)').toEqual([]);
    // Where the spec says what a field is: every doc names its section.
    expect(withoutSection, 'field docs that name no spec section: add its (spec 4.6)-style reference').toEqual([]);
  });
});
