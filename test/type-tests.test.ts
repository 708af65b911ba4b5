// The type tests (test/**/*.test-d.ts), checked with test/typecheck.tsconfig.json by TypeScript 7,
// the compiler `npm i -D typescript` gives users now: each file passes when the compiler reports
// nothing in it. `npm run typecheck` checks the same files, and everything else, with TypeScript 6,
// the one the build and typedoc need; so the types hold under both. TypeScript 7's compiler is
// native and checks the whole program in a fraction of the time 6 takes, which is why it runs
// here, in a child process beside the other files.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative } from 'node:path';
import { beforeAll, expect, test } from 'vitest';

const root = join(import.meta.dirname, '..');
const configFile = join(import.meta.dirname, 'typecheck.tsconfig.json');
const typeTests = readdirSync(import.meta.dirname, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test-d.ts'))
  .map((file) => `test/${file.replaceAll('\\', '/')}`)
  .sort();
const tsc = join(createRequire(import.meta.url).resolve('typescript7/package.json'), '..', 'bin', 'tsc');

/** What the compiler reports, by file (relative to the repository), as `file:line:column TS<code>: message`. */
const reported = new Map<string, string[]>();
/** The files the compiler read (`--listFiles`), relative to the repository: a type test it did not read proves nothing. */
const read = new Set<string>();
// `file(line,column): error TS<code>: message`, or `error TS<code>: message` for the settings.
const REPORT = /^(?:(.+)\((\d+),(\d+)\): )?error (TS\d+): (.*)$/;

beforeAll(async () => {
  const output = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [tsc, '-p', configFile, '--noEmit', '--pretty', 'false', '--listFiles'], { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      // The compiler exits non-zero when it reports an error: those are the results. Anything it
      // cannot report on (it did not start, or wrote to stderr) fails every test below.
      if (stderr !== '' || (error !== null && stdout === '')) reject(new Error(`${relative(root, tsc)} did not run: ${stderr || (error?.message ?? '')}`));
      else resolve(stdout);
    });
  });
  let last: string[] | undefined;
  for (const line of output.split(/\r?\n/)) {
    if (isAbsolute(line)) {
      read.add(relative(root, line).replaceAll('\\', '/'));
      continue;
    }
    const match = REPORT.exec(line);
    if (match === null) {
      // A message's further lines are indented beneath it.
      if (line.trim() !== '' && last !== undefined) last.push(`  ${line.trim()}`);
      continue;
    }
    const [, path, row, column, code, message] = match;
    const file = path === undefined ? relative(root, configFile) : relative(root, join(root, path)).replaceAll('\\', '/');
    last = reported.get(file) ?? [];
    last.push(`${file}${row === undefined ? '' : `:${row}:${column ?? ''}`} ${code ?? ''}: ${message ?? ''}`);
    reported.set(file, last);
  }
}, 300_000);

test('there are type tests to check', () => {
  expect(typeTests.length).toBeGreaterThan(0);
});

test.each(typeTests)('%s type-checks', (file) => {
  expect(read.has(file), `${file} is not in ${relative(root, configFile)}'s program`).toBe(true);
  expect(reported.get(file) ?? []).toEqual([]);
});

test('the settings are valid, and every file the type tests import type-checks', () => {
  expect([...reported].filter(([file]) => !typeTests.includes(file)).flatMap(([, lines]) => lines)).toEqual([]);
});
