// Loads every entry of package.json `exports` (scripts/entries.mjs) as a consumer installed it, in
// the consumer folder given as the argument: each imported (ESM) and required (CommonJS) by its name.
// Each must export at run time exactly the values its declarations there (.d.ts, .d.cts) export, as
// TypeScript reads them, and a value it shares with `payorch` under one name is the same object
// (one copy of the SDK across entries); but where `exports` gives Node an ESM file of its own (the
// `module-sync` condition: payorch/webhooks), whose functions load the whole entry's on their first call,
// those functions are its own. Without its optional peers installed, an entry loads, or
// stops only at the peer it is named after (payorch/bullmq without bullmq). Called by check-package.sh.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { ENTRIES } from './entries.mjs';

const consumer = process.argv[2];
if (consumer === undefined) throw new Error('usage: node scripts/check-entries.mjs <consumer folder>');
const main = ENTRIES.find((each) => each.subpath === '.').name;
const installed = join(consumer, 'node_modules', main);

// One program over every entry's declarations: the names each exports that a user may import as values.
const declarations = ENTRIES.flatMap((each) => [join(installed, each.types), join(installed, each.ctypes)]);
const program = ts.createProgram(declarations, { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [] });
const checker = program.getTypeChecker();
function valuesDeclared(file) {
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${file} declares no module`);
  const typeOnly = (symbol) => symbol.declarations?.some((node) => ts.isExportSpecifier(node) && (node.isTypeOnly || node.parent.parent.isTypeOnly)) ?? false;
  return checker
    .getExportsOfModule(module)
    .filter((symbol) => !typeOnly(symbol) && ((symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol).flags & ts.SymbolFlags.Value) !== 0)
    .map((symbol) => symbol.name)
    .sort();
}

// Run in the consumer's folder, so that each name resolves as the consumer's own code resolves it.
// Prints, per entry, its value names and those not identical to payorch's, or the error that stopped it.
const probe = (load) => `
(async () => {
  const load = async (name) => ${load};
  const main = await load(${JSON.stringify(main)});
  const report = {};
  for (const name of ${JSON.stringify(ENTRIES.map((each) => each.name))}) {
    try {
      const module = await load(name);
      const names = Object.keys(module).filter((key) => key !== '__esModule').sort();
      const copies = names.filter((key) => key in main && main[key] !== module[key]);
      const isFunction = (key) => typeof module[key] === 'function' && !/^class\b/.test(Function.prototype.toString.call(module[key]));
      report[name] = { names, copies: copies.filter((key) => !isFunction(key)), functionCopies: copies.filter(isFunction) };
    } catch (error) {
      report[name] = { error: String(error?.message ?? error).split('\\n')[0] };
    }
  }
  process.stdout.write(JSON.stringify(report));
})();`;
const run = (args) => JSON.parse(execFileSync(process.execPath, args, { cwd: consumer, encoding: 'utf8' }));
const formats = [
  ['ESM', 'types', run(['--input-type=module', '-e', probe('await import(name)')])],
  ['CommonJS', 'ctypes', run(['--input-type=commonjs', '-e', probe('require(name)')])],
];

const problems = [];
// Whether `name` is in a node_modules folder the consumer's code looks in (its own or one above it).
const resolvable = (name) => createRequire(join(consumer, 'package.json')).resolve.paths(name).some((dir) => existsSync(join(dir, name)));
const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
const meta = manifest.peerDependenciesMeta ?? {};
const optionalPeers = Object.keys(meta).filter((peer) => meta[peer].optional === true);
for (const each of ENTRIES) {
  const namesake = each.subpath.slice(2);
  const peerMissing = optionalPeers.includes(namesake) && !resolvable(namesake);
  const loaded = [];
  for (const [format, types, report] of formats) {
    const got = report[each.name];
    if ('error' in got) {
      const missing = /Cannot find (?:package|module) '([^']+)'/.exec(got.error)?.[1];
      if (!peerMissing || missing !== namesake) problems.push(`${format}: ${each.name} does not load: ${got.error}`);
      continue;
    }
    const declared = valuesDeclared(join(installed, each[types]));
    const absent = declared.filter((name) => !got.names.includes(name));
    const undeclared = got.names.filter((name) => !declared.includes(name));
    const before = problems.length;
    if (declared.length === 0) problems.push(`${format}: ${each.name} exports no value`);
    if (absent.length > 0) problems.push(`${format}: ${each.name} lacks at run time the values ${each[types]} declares: ${absent.join(', ')}`);
    if (undeclared.length > 0) problems.push(`${format}: ${each.name} exports values ${each[types]} does not declare: ${undeclared.join(', ')}`);
    const target = manifest.exports[each.subpath];
    const nodeFile = format === 'ESM' && typeof target.import['module-sync'] === 'string' && target.import['module-sync'] !== target.import.default;
    const copies = nodeFile ? got.copies : [...got.copies, ...got.functionCopies];
    if (copies.length > 0) problems.push(`${format}: ${each.name} exports its own copy of payorch's ${copies.join(', ')}`);
    if (nodeFile && got.functionCopies.length === 0) problems.push(`${format}: ${each.name} resolves under Node to ${target.import['module-sync']}, yet its functions are payorch's: it loaded the whole entry`);
    if (problems.length === before) loaded.push(`${format} (${declared.length} values)`);
  }
  if (loaded.length > 0) console.log(`${each.name}: ${loaded.join(' and ')} as declared`);
  else if (peerMissing) console.log(`${each.name}: stops at its optional peer ${namesake}, not installed here`);
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
