// The type tests (test/**/*.test-d.ts), checked by the compiler with test/typecheck.tsconfig.json:
// each file passes when the compiler reports nothing in it. Only they are type-checked, with the
// program's settings and the syntax of every file it reads: the bodies of src/ are `npm run
// typecheck`'s, which would double the compiler's time here. Here, in a worker beside the other
// files, rather than in vitest's typecheck pool, which starts tsc only once every other file has
// ended, so that its seconds were the run's last, on one core.
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
  const checked = [
    ...config.errors,
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...typeTests.flatMap((file) => {
      const source = program.getSourceFile(join(root, file));
      if (source === undefined) throw new Error(`${file} is not in the compiler's program`);
      return program.getSemanticDiagnostics(source);
    }),
  ];
  for (const diagnostic of checked) {
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

test('the settings are valid, and every file the type tests import parses', () => {
  expect([...reported].filter(([file]) => !typeTests.includes(file)).flatMap(([, lines]) => lines)).toEqual([]);
});
