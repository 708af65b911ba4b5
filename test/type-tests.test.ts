// The type tests (test/**/*.test-d.ts) and what they import, checked by the compiler with
// test/typecheck.tsconfig.json as `tsc --noEmit -p` would: each file passes when the compiler
// reports nothing in it. Here, in a worker beside the other files, rather than in vitest's
// typecheck pool, which starts tsc only once every other file has ended, so that its seconds were
// the run's last, on one core.
import { join, relative } from 'node:path';
import ts from 'typescript';
import { beforeAll, expect, test } from 'vitest';

const root = join(import.meta.dirname, '..');
const configFile = join(import.meta.dirname, 'typecheck.tsconfig.json');
const config = ts.getParsedCommandLineOfConfigFile(configFile, undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(`${configFile}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  },
});
if (config === undefined) throw new Error(`${configFile} could not be read`);
const typeTests = config.fileNames.filter((file) => file.endsWith('.test-d.ts')).map((file) => relative(root, file));

/** What the compiler reports, by file (relative to the repository), as `file:line:column TS<code>: message`. */
const reported = new Map<string, string[]>();

beforeAll(() => {
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config) });
  for (const diagnostic of [...config.errors, ...ts.getPreEmitDiagnostics(program)]) {
    const file = diagnostic.file === undefined ? relative(root, configFile) : relative(root, diagnostic.file.fileName);
    const at = diagnostic.file === undefined || diagnostic.start === undefined ? undefined : diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const line = `${file}${at === undefined ? '' : `:${String(at.line + 1)}:${String(at.character + 1)}`} TS${String(diagnostic.code)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    reported.set(file, [...(reported.get(file) ?? []), line]);
  }
  // The compiler's time is that of `tsc`, on a busy machine several times more.
}, 300_000);

test('there are type tests to check', () => {
  expect(typeTests.length).toBeGreaterThan(0);
});

test.each(typeTests)('%s type-checks', (file) => {
  expect(reported.get(file) ?? []).toEqual([]);
});

test('what the type tests import type-checks, and so do the settings', () => {
  expect([...reported].filter(([file]) => !typeTests.includes(file)).flatMap(([, lines]) => lines)).toEqual([]);
});
