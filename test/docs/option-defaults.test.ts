import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { clientOptions } from '../../src/core/client-options.js';
import { CALL_SETTINGS, REQUEST_OPTIONS, allowedBy } from '../../src/core/option-checks.js';
import type { OptionDeclaration } from '../../src/core/option-checks.js';
import { declared, rangeOf } from '../../src/tools/cli/flags.js';
import { DEAD_LETTER_PAGE_LIMIT } from '../../src/queues/dead-letters.js';
import { SANDBOX_OPTIONS } from '../../src/tools/sandbox/options.js';
import { PGBOSS_QUEUE_OPTIONS } from '../../src/queues/pg-boss/options.js';
import { BULLMQ_QUEUE_OPTIONS } from '../../src/queues/bullmq/queue.js';
import { CLOUDFLARE_QUEUE_OPTIONS } from '../../src/queues/cloudflare-queues/options.js';
import { VERIFY_OPTIONS } from '../../src/webhooks/verify.js';
import { payorch } from '../cli/run.js';

/*
 * Each option's default is written once, in its declaration, and read from there at run time.
 * What people read repeats it: the JSDoc `@default` of its interface, the CLI help and the docs'
 * tables. These tests hold each of those to the declaration, so that none drifts. That each
 * declaration names an option of its interface, and that none is left out, the compiler holds
 * (`declareOptions` in src/core/option-checks.ts).
 */

const root = join(import.meta.dirname, '../..');

/** An option's default as declared, by its (dotted) name. */
type Defaults = ReadonlyMap<string, unknown>;
const defaultsOf = (declarations: readonly OptionDeclaration[]): Defaults =>
  new Map(declarations.filter((each) => each.default !== undefined).map((each) => [each.name, each.default] as const));

/*
 * Every exported `*Options` interface of src/ and the declarations that check it, found by
 * reading the sources: `declareOptions<TheOptions>()([...])` names the interface it declares.
 * An interface without declarations of its own is checked by those of the interface that holds
 * it as a member (CallbackRetryOptions is SandboxOptions.callbackRetry) or that it extends.
 */
const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts')).map((file) => join('src', file));
const parsed = new Map(sources.map((file) => [file, ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true)]));

interface OptionsInterface {
  readonly file: string;
  readonly name: string;
  /** Members typed with another interface, by member name. */
  readonly nested: ReadonlyMap<string, string>;
  readonly extended: readonly string[];
}
const typeName = (node: ts.TypeNode | undefined): string | undefined => {
  if (node === undefined) return undefined;
  if (ts.isTypeReferenceNode(node)) return node.typeName.getText();
  if (ts.isUnionTypeNode(node)) return node.types.map(typeName).find((each) => each !== undefined);
  return undefined;
};
const optionInterfaces: OptionsInterface[] = [];
/** The holders of each interface's declarations: a module's exported constant or function. */
const holders = new Map<string, { file: string; holder: string; unchecked: readonly string[] }[]>();
for (const [file, source] of parsed) {
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) && /Options$/.test(node.name.text) && node.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) {
      const nested = new Map(node.members.flatMap((member) => (ts.isPropertySignature(member) && ts.isIdentifier(member.name) && typeName(member.type) !== undefined ? [[member.name.text, typeName(member.type)!] as const] : [])));
      const extended = (node.heritageClauses ?? []).flatMap((clause) => clause.types.map((type) => type.expression.getText()));
      optionInterfaces.push({ file, name: node.name.text, nested, extended });
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'declareOptions' && node.typeArguments?.[0] !== undefined) {
      const declaresFor = typeName(node.typeArguments[0]) ?? '';
      const holder = ts.findAncestor(node, (each): each is ts.VariableDeclaration | ts.FunctionDeclaration => ts.isVariableDeclaration(each) || ts.isFunctionDeclaration(each));
      const holderName = holder?.name?.getText() ?? '';
      // The options left out of the declarations, each with its reason: a default of theirs has no declaration to match.
      const reasons = ts.isCallExpression(node.parent) ? node.parent.arguments[1] : undefined;
      const unchecked = reasons !== undefined && ts.isObjectLiteralExpression(reasons) ? reasons.properties.flatMap((property) => (property.name === undefined ? [] : [property.name.getText()])) : [];
      holders.set(declaresFor, [...(holders.get(declaresFor) ?? []), { file, holder: holderName, unchecked }]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** The file a relative import of `file` names (`../sqlite.js` is ../sqlite.ts). */
const importedFile = (file: string, specifier: string): string => join(dirname(file), specifier.replace(/\.js$/, '.ts'));

/** `name` as `file` has it: its own declaration, or the module and name it imports it as (named or namespace). */
function bindingOf(file: string, name: string): { file: string; name: string } | { namespace: string } | undefined {
  const source = parsed.get(file);
  if (source === undefined) throw new Error(`${file} is not a source under src/`);
  for (const statement of source.statements.filter(ts.isImportDeclaration)) {
    const from = importedFile(file, (statement.moduleSpecifier as ts.StringLiteral).text);
    const bindings = statement.importClause?.namedBindings;
    if (bindings === undefined) continue;
    if (ts.isNamespaceImport(bindings) && bindings.name.text === name) return { namespace: from };
    if (ts.isNamedImports(bindings)) {
      const element = bindings.elements.find((each) => each.name.text === name);
      if (element !== undefined) return { file: from, name: (element.propertyName ?? element.name).getText() };
    }
  }
  const local = source.statements.filter(ts.isVariableStatement).flatMap((each) => [...each.declarationList.declarations]).some((each) => each.name.getText() === name);
  return local ? { file, name } : undefined;
}

/** What `file` exports as `name` at run time (re-exports included), or undefined. */
async function exported(file: string, name: string): Promise<unknown> {
  return ((await import(join(root, file))) as Record<string, unknown>)[name];
}

/**
 * The declarations a holder keeps: its module's export (a function makes a client's, for the
 * provider), or, for an entry module that keeps them to itself, those its list is made of,
 * followed through named and namespace imports and re-exports.
 */
async function declarationsOf(file: string, holder: string): Promise<readonly OptionDeclaration[]> {
  const value = await exported(file, holder);
  if (Array.isArray(value)) return value as OptionDeclaration[];
  if (typeof value === 'function') return (value as (api: string) => OptionDeclaration[])('PROVIDER');
  const source = parsed.get(file)!;
  const statement = source.statements.filter(ts.isVariableStatement).flatMap((each) => [...each.declarationList.declarations]).find((each) => each.name.getText() === holder);
  const call = statement?.initializer;
  const argument = call !== undefined && ts.isCallExpression(call) ? call.arguments[0] : undefined;
  // joinOptions(FIRST, [...]): FIRST's declarations, then the list's.
  const joined = argument !== undefined && ts.isCallExpression(argument) && argument.expression.getText() === 'joinOptions' ? argument.arguments : undefined;
  const list = joined === undefined ? argument : joined[1];
  if (list === undefined || !ts.isArrayLiteralExpression(list)) throw new Error(`${file}: ${holder} is neither an exported list of option declarations nor a declareOptions([...]) of this file: export it`);
  const found: OptionDeclaration[] = [];
  for (const element of [...(joined?.[0] === undefined ? [] : [joined[0]]), ...list.elements]) {
    // The first part of a join is spread like `...FIRST`.
    const spread = ts.isSpreadElement(element) || element === joined?.[0];
    const expression = ts.isSpreadElement(element) ? element.expression : element;
    // `sqlite.SQLITE_TABLE_OPTION`: a namespace import's export; `DB_OPTION`: an import or this file's own.
    const binding = ts.isPropertyAccessExpression(expression) && ts.isIdentifier(expression.expression) ? bindingOf(file, expression.expression.text) : ts.isIdentifier(expression) ? bindingOf(file, expression.text) : undefined;
    const target = binding !== undefined && 'namespace' in binding && ts.isPropertyAccessExpression(expression) ? { file: binding.namespace, name: expression.name.text } : binding !== undefined && !('namespace' in binding) ? binding : undefined;
    if (target === undefined) throw new Error(`${file}: ${holder} lists ${expression.getText()}; list declarations by name (a constant of this file or an imported one) so that their defaults can be checked`);
    if (spread) {
      found.push(...(await declarationsOf(target.file, target.name)));
      continue;
    }
    const declaration = (await exported(target.file, target.name)) as OptionDeclaration | undefined;
    if (declaration !== undefined) {
      found.push(declaration);
      continue;
    }
    // A declaration this file keeps to itself cannot be read here: only one without a default may.
    const local = parsed.get(target.file)!.statements.filter(ts.isVariableStatement).flatMap((each) => [...each.declarationList.declarations]).find((each) => each.name.getText() === target.name);
    if (local?.initializer?.getText().includes('default:') !== false) throw new Error(`${target.file}: ${target.name} declares a default that nothing can read: export it (export const ${target.name} = …) so that its default is checked against the @default of its interface`);
  }
  return found;
}

/** The declarations that check an interface, with the prefix that places it among them. */
function checkedBy(name: string, prefix = ''): { holders: { file: string; holder: string; unchecked: readonly string[] }[]; prefix: string } | undefined {
  const own = holders.get(name);
  if (own !== undefined) return { holders: own, prefix };
  for (const parent of optionInterfaces) {
    const member = [...parent.nested].find(([, type]) => type === name)?.[0];
    if (member !== undefined && parent.name !== name) return checkedBy(parent.name, `${member}.${prefix}`);
  }
  const extended = optionInterfaces.find((each) => each.name === name)?.extended.find((each) => holders.has(each));
  return extended === undefined ? undefined : { holders: holders.get(extended)!, prefix };
}

const interfaces: [file: string, name: string, prefix: string, defaults: Defaults, unchecked: readonly string[]][] = [];
/** Interfaces that document a default no declaration holds. */
const undeclared: string[] = [];
for (const { file, name } of optionInterfaces) {
  if (jsDocDefaults(file, name).size === 0) continue;
  const found = checkedBy(name);
  if (found === undefined) {
    undeclared.push(`${file}: ${name} documents a @default, and no declareOptions<${name}>() declares its options: declare them beside the interface, and check them where the options are taken (checkOptions)`);
    continue;
  }
  for (const { file: declaredIn, holder, unchecked } of found.holders) interfaces.push([file, name, found.prefix, defaultsOf(await declarationsOf(declaredIn, holder)), unchecked]);
}

/** A `@default` that states a value (a number, a quoted string, a boolean, or an object of them); undefined for prose. */
function literalOf(text: string): unknown {
  // A per-call option defaults to the client's: `the client's \`timeout\` (30000)`.
  const client = /^the client's `\w+` \((.+)\)$/.exec(text)?.[1];
  if (client !== undefined) return literalOf(client);
  const number = /^-?\d[\d_]*(?:\.\d+)?(?![\w.])/.exec(text)?.[0];
  if (number !== undefined) return Number(number.replaceAll('_', ''));
  const quoted = /^'([^']*)'/.exec(text)?.[1];
  if (quoted !== undefined) return quoted;
  const boolean = /^(true|false)\b/.exec(text)?.[1];
  if (boolean !== undefined) return boolean === 'true';
  const object = /^\{ (.+) \}$/.exec(text)?.[1];
  if (object !== undefined) return Object.fromEntries(object.split(', ').map((pair) => [pair.split(': ')[0], literalOf(pair.split(': ')[1] ?? '')]));
  return undefined;
}

/** The `@default` text of each member of an interface, by its name. */
function jsDocDefaults(file: string, name: string): Map<string, string> {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found = source.statements.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name);
  if (found === undefined) throw new Error(`${file} declares no interface ${name}`);
  const defaults = new Map<string, string>();
  for (const member of found.members) {
    if (member.name === undefined || !ts.isIdentifier(member.name)) continue;
    const tag = ts.getJSDocTags(member).find((each) => each.tagName.text === 'default');
    if (tag !== undefined) defaults.set(member.name.text, (ts.getTextOfJSDocComment(tag.comment) ?? '').trim());
  }
  return defaults;
}

const rows = interfaces.flatMap(([file, name, prefix, defaults, unchecked]) =>
  [...jsDocDefaults(file, name)].filter(([member]) => !unchecked.includes(`${prefix}${member}`)).flatMap(([member, text]) => {
    const value = literalOf(text);
    // An object default names the defaults of its nested options, one row each.
    const entries: [string, unknown][] = typeof value === 'object' && value !== null ? Object.entries(value).map(([key, inner]) => [`${member}.${key}`, inner]) : [[member, value]];
    return entries.map(([option, stated]) => ({ file, name, option: `${prefix}${option}`, text, stated, declared: defaults.get(`${prefix}${option}`) }));
  }),
);

describe("an interface's JSDoc @default states the defaults its declarations hold", () => {
  test('every exported options interface of src/ that documents a default is found, with its declarations', () => {
    const documented = optionInterfaces.filter(({ file, name }) => jsDocDefaults(file, name).size > 0).map(({ name }) => name);
    expect(documented.length).toBeGreaterThan(0);
    // An interface that documents a default must have declarations (declareOptions, checked
    // where the options are taken): the default is then held to them below.
    expect(undeclared).toEqual([]);
    expect(documented.filter((name) => !interfaces.some(([, checked]) => checked === name))).toEqual([]);
  });

  test.each(interfaces.map(([file, name, prefix, defaults]) => [name, file, prefix, defaults] as const))('%s', (name, file, prefix, defaults) => {
    const members = jsDocDefaults(file, name);
    const here = rows.filter((row) => row.name === name);
    // Prose ("Date.now", "none") names no value: then the option must declare none either.
    expect(Object.fromEntries(here.map((row) => [row.option, row.stated])), `${file}: make each @default of ${name} state the default its declareOptions declares (expected), or fix the declaration`).toEqual(Object.fromEntries(here.map((row) => [row.option, row.declared])));
    // A nested option is this interface's to state when its member's @default is an object of them;
    // otherwise the nested interface states it (SandboxProviderOptions for `provider.name`).
    const ownedHere = (path: string): boolean => {
      const [member = '', ...rest] = path.split('.');
      return members.has(member) && (rest.length === 0 || (members.get(member) ?? '').startsWith('{'));
    };
    const stated = new Set(here.filter((row) => row.stated !== undefined).map((row) => row.option));
    const own = [...defaults.keys()].filter((option) => option.startsWith(prefix) && ownedHere(option.slice(prefix.length)));
    expect(own.filter((option) => !stated.has(option)), `${file}: these options of ${name} have a declared default: write it as their @default`).toEqual([]);
  });
});

/** The file under src/ that declares the interface `name`, wherever a refactor moved it. */
function fileDeclaring(name: string): string {
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const file = files.find((each) => readFileSync(join(root, 'src', each), 'utf8').includes(`export interface ${name} `));
  if (file === undefined) throw new Error(`No file under src/ declares ${name}`);
  return join('src', file);
}

test("each of RequestOptions' @default names the client's option and its declared default", () => {
  const stated = jsDocDefaults(fileDeclaring('RequestOptions'), 'RequestOptions');
  expect(Object.fromEntries(CALL_SETTINGS.map(({ name }) => [name, stated.get(name)]))).toEqual(
    Object.fromEntries(CALL_SETTINGS.map(({ name, default: value }) => [name, `the client's \`${name}\` (${String(value)})`])),
  );
});

/** The rows of the markdown table under `heading` in a docs file: first cell to last cell. */
function tableRows(file: string, heading: string): [string, string][] {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`${file} has no section ${heading}`);
  const section = text.slice(start + heading.length + 5).split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Option') && !line.startsWith('|---'))
    .map((line) => {
      const cells = line.slice(2, -2).split(' | ');
      return [cells[0] ?? '', cells.at(-1) ?? ''];
    });
}

describe("docs/errors-and-retries.md's table of options states each declared range", () => {
  const declarations = clientOptions('provider');
  const table = tableRows('docs/errors-and-retries.md', 'Options are checked where they are given');
  const numeric = declarations.filter((declaration) => declaration.rule.type === 'number' || declaration.rule.type === 'boolean');

  test('the row of each number or boolean option says what its rule allows', () => {
    const rows = Object.fromEntries(numeric.map(({ name }) => [name, table.find(([option]) => option.startsWith(`\`${name}\``))?.[1] ?? '(no row)']));
    for (const declaration of numeric) expect(rows[declaration.name], declaration.name).toContain(allowedBy(declaration.rule));
  });
});

describe('a CLI flag that is a setting shows the range and default of its declaration, in its help and in docs/cli.md', () => {
  const flags: [command: string, flag: string, shown: string, inDocsTable: boolean][] = [
    ['sandbox', '--port', '0 to 65535, default 4010', true],
    ['sandbox', '--callback-retries', rangeOf(declared(SANDBOX_OPTIONS, 'callbackRetry.attempts')), true],
    ['sandbox', '--callback-timeout', rangeOf(declared(SANDBOX_OPTIONS, 'callbackRetry.timeoutMs')), true],
    ['call', '--timeout', rangeOf(declared(REQUEST_OPTIONS, 'timeout')), false],
    ['verify', '--tolerance', rangeOf(declared(VERIFY_OPTIONS, 'toleranceSeconds')), false],
    ['verify', '--max-age', rangeOf(declared(VERIFY_OPTIONS, 'maxAgeSeconds')), false],
    ['doctor', '--timeout', '1 to 600000, default 10000', false],
    ['trigger', '--timeout', '1 to 600000, default 10000', false],
    ['dead-letters', '--limit', rangeOf(DEAD_LETTER_PAGE_LIMIT), false],
  ];
  const sandboxTable = tableRows('docs/cli.md', '`payorch sandbox`');

  test.each(flags)('payorch %s --help shows %s as (%s)', async (command, flag, shown, inDocsTable) => {
    const help = await payorch([command, '--help']);
    const line = help.stdout.split('\n').find((each) => each.trimStart().startsWith(`${flag} `));
    expect(line).toContain(`(${shown}`);
    if (inDocsTable) expect(sandboxTable.find(([option]) => option.startsWith(`\`${flag} `))?.[1]).toContain(`(${shown})`);
  });

  test.each([
    ['sandbox', ['--callback-retries', '21'], '--callback-retries must be an integer from 1 to 20; got 21'],
    ['sandbox', ['--port', '65536'], '--port must be an integer from 0 to 65535; got 65536'],
    ['call', ['provider.welcome', '--timeout', 'soon'], '--timeout must be a finite number of milliseconds from 1 to 2147483647; got "soon"'],
    ['verify', ['--body', '-', '--tolerance=-1'], '--tolerance must be a finite number of seconds, 0 or more; got -1'],
    ['doctor', ['--timeout', '600001'], '--timeout must be an integer from 1 to 600000; got 600001'],
    ['trigger', ['deposit.completed', '--forward-to', 'http://127.0.0.1:1/', '--timeout', '0'], '--timeout must be an integer from 1 to 600000; got 0'],
    ['dead-letters', ['list', '--redis-url', 'redis://127.0.0.1:1', '--limit', '1001'], '--limit must be an integer from 1 to 1000; got 1001'],
  ])('payorch %s %j is bad usage naming the flag, its range and what was typed', async (command, args, message) => {
    const run = await payorch([command, ...args], { PAYORCH_PROVIDER_API_KEY: 'k', PAYORCH_PROVIDER_SECRET_KEY: 's', PAYORCH_DEALER_API_KEY: 'k', PAYORCH_DEALER_SECRET_KEY: 's', PAYORCH_BASE_URL: 'http://127.0.0.1:1' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});

describe("docs/deferred.md's table of retry settings names each engine's option and its declared default", () => {
  const text = readFileSync(join(root, 'docs/deferred.md'), 'utf8');
  const section = text.slice(text.indexOf('\n## Retry settings\n')).split('\n## ')[1] ?? '';
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Idea') && !line.startsWith('|---'))
    .map((line) => line.slice(2, -2).split(' | '));
  const engines: [column: number, declarations: readonly OptionDeclaration[]][] = [
    [1, PGBOSS_QUEUE_OPTIONS],
    [2, BULLMQ_QUEUE_OPTIONS],
    [3, CLOUDFLARE_QUEUE_OPTIONS],
  ];
  const quotedNames = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');

  test('the table has its rows, each with a cell per engine and a default', () => {
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const row of rows) expect(row, row[0]).toHaveLength(5);
  });

  test.each(engines)('each option column %i names is declared, with its default in the row', (column, declarations) => {
    const defaults = defaultsOf(declarations);
    for (const row of rows) {
      for (const name of quotedNames(row[column] ?? '').filter((each) => defaults.has(each))) expect(row[4], `${row[0]}: ${name}`).toContain(String(defaults.get(name)));
    }
  });

  test.each(engines)('every retry or dead-letter option of column %i is in the table', (column, declarations) => {
    const named = new Set(rows.flatMap((row) => quotedNames(row[column] ?? '')));
    for (const { name } of declarations.filter((each) => /retr|dead|^table$/i.test(each.name))) expect(named, name).toContain(name);
  });

  test('pg-boss and BullMQ name each idea alike', () => {
    for (const row of rows.slice(0, 2)) expect(quotedNames(row[1] ?? ''), row[0]).toEqual(quotedNames(row[2] ?? ''));
  });
});
