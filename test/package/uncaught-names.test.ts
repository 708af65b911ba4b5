import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { ENTRIES, entry } from '../../scripts/entries.mjs';

/*
 * What Node prints for an error of payorch nobody caught, from the built package: the first line
 * must start with the class's own name. esbuild renames a class that refers to itself
 * (`class _APIError`), and Node prints an uncaught error under its constructor's name when that
 * differs from `error.name`; the names are read from the build, so a class added later is checked
 * too (an error class without a way to make it here fails the test).
 */
const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

// Every entry of package.json `exports`: one that exports no error class has nothing to print.
const BUILT = ENTRIES.map((each) => `dist/${each.out}`);

// Each class made with arguments its constructor takes; `call` is what a client's error names.
const MAKERS = `
const call = { operation: 'provider.welcome', request: { method: 'POST', url: 'https://pay.example.com/api/provider/welcome' } };
const answer = ['boom', { status: 500, headers: {}, body: '', request: call.request }];
const makers = {
  PayorchError: ['boom'],
  RequestValidationError: ['op', [{ field: 'f', rule: 'required', message: 'is required' }]],
  ConnectionError: [{ ...call, cause: undefined, reason: 'connection_refused' }],
  TrackingCodeError: ['nope'],
  CallbackVerificationError: ['invalid_signature', 'boom'],
  CallbackJobError: ['invalid_signature', 'hash', 'boom'],
  CallbackRetentionError: [{ trackingCode: 'MAN-a-1', status: 'completed' }, 1, 2],
  InboxError: ['boom'],
  InboxFullError: [1],
  QueueError: ['boom'],
  NotConfirmedError: ['boom'],
  UnhandledError: ['boom'],
  CallbackHandlingError: ['handler', new Error('boom')],
  InboxCommitError: ['boom'],
  StatementPoolingError: ['boom'],
  ResponseValidationError: ['op', { status: 200, issues: [], body: {}, rawBody: '{}' }],
  TimeoutError: [1000, call],
  RequestAbortedError: [undefined, call],
  SandboxError: ['unknown_record', 'boom'],
  TransferWaitTimeoutError: ['TRF-1', 1000, 'pending'],
};
const argsOf = (name, Class) => makers[name] ?? (Class.prototype instanceof sdk.APIError || Class === sdk.APIError ? answer : undefined);
`;

/** The exported error classes of every entry, listed by one child process of the built package. */
async function classesOfAll(): Promise<Record<string, string[]>> {
  const { stdout } = await run(process.execPath, ['-e', `const base = require(${JSON.stringify(join(root, 'dist/index.cjs'))}).PayorchError; const out = {};
for (const entry of ${JSON.stringify(BUILT)}) { const sdk = require(require('node:path').join(${JSON.stringify(root)}, entry + '.cjs')); out[entry] = Object.keys(sdk).filter((name) => typeof sdk[name] === 'function' && (sdk[name] === base || sdk[name].prototype instanceof base)); }
process.stdout.write(JSON.stringify(out));`]);
  return JSON.parse(stdout) as Record<string, string[]>;
}

/** Loads the main entry and `entry` of the build into `sdk`, which MAKERS' argsOf reads. */
function loader(entry: string, format: 'esm' | 'cjs'): string {
  const file = join(root, `${entry}.${format === 'esm' ? 'js' : 'cjs'}`);
  const main = join(root, `dist/index.${format === 'esm' ? 'js' : 'cjs'}`);
  return format === 'esm'
    ? `sdk = { ...(await import(${JSON.stringify(pathToFileURL(main).href)})), ...(await import(${JSON.stringify(pathToFileURL(file).href)})) };`
    : `sdk = { ...require(${JSON.stringify(main)}), ...require(${JSON.stringify(file)}) };`;
}

async function node(format: 'esm' | 'cjs', body: string): Promise<{ stdout: string; stderr: string }> {
  const args = format === 'esm' ? ['--input-type=module', '-e', `let sdk;${body}`] : ['-e', `let sdk;${body}`];
  return run(process.execPath, args).then(
    ({ stdout }) => ({ stdout, stderr: '' }),
    // A process that ends with an uncaught error: execFile rejects with what it printed.
    (error: unknown) => error as { stdout: string; stderr: string },
  );
}

/*
 * Each process costs the run a fork of vitest's and a Node start-up: the classes of every entry
 * are listed by one process, and inspected by one process a format; only a throw that ends its
 * process takes one of its own.
 */
let classes: Promise<Record<string, string[]>> | undefined;
const classesOf = async (entry: string): Promise<string[]> => (await (classes ??= classesOfAll()))[entry] ?? [];
const inspected = new Map<'esm' | 'cjs', Promise<Record<string, Record<string, string>>>>();
function inspectedOf(format: 'esm' | 'cjs', entry: string): Promise<Record<string, string>> {
  let all = inspected.get(format);
  if (all === undefined) {
    all = (async () => {
      const each = await Promise.all(BUILT.map(async (built) => [built, await classesOf(built)] as const));
      const listed = await node(format, `${MAKERS}const { inspect } = ${format === 'esm' ? 'await import("node:util")' : 'require("node:util")'};
const out = {};
${each
  .filter(([, names]) => names.length > 0)
  .map(([built, names]) => `${loader(built, format)} out[${JSON.stringify(built)}] = {};
for (const name of ${JSON.stringify(names)}) { const Class = sdk[name]; const args = argsOf(name, Class); out[${JSON.stringify(built)}][name] = args === undefined ? 'no maker' : inspect(new Class(...args)); }`)
  .join('\n')}
process.stdout.write(JSON.stringify(out));`);
      return JSON.parse(listed.stdout) as Record<string, Record<string, string>>;
    })();
    inspected.set(format, all);
  }
  return all.then((each) => each[entry] ?? {});
}

/** The first line Node prints for the error, below the source excerpt it shows above it. */
const header = (printed: string): string | undefined => printed.split('\n').find((line) => /^\S+(: | \[)/.test(line) && !line.startsWith('file:') && !line.startsWith('/') && !line.startsWith('[eval'));

describe('an uncaught error of payorch, as Node prints it from the built package', () => {
  test('the main entry exports error classes: the checks below are not vacuous', async () => {
    expect((await classesOf(`dist/${entry('payorch').out}`)).length).toBeGreaterThan(10);
  });

  test.each(BUILT)('%s: every error class it exports prints its own name, in ESM and CommonJS', async (entry) => {
    const names = await classesOf(entry);
    if (names.length === 0) return;
    await Promise.all((['esm', 'cjs'] as const).map(async (format) => {
      // Every class through util.inspect, which is what Node's printer of an uncaught error uses...
      const printed = await inspectedOf(format, entry);
      for (const name of names) expect(header(printed[name] ?? ''), `${format} ${entry} ${name}: ${printed[name] ?? ''}`).toMatch(new RegExp(`^${name}: `));
      // ...and one thrown for real, uncaught, as a process ends with it.
      const name = names.includes('APIError') ? 'APIError' : (names.at(-1) ?? '');
      const thrown = await node(format, `${loader(entry, format)}${MAKERS}const Class = sdk[${JSON.stringify(name)}]; throw new Class(...argsOf(${JSON.stringify(name)}, Class));`);
      expect(header(thrown.stderr), `${format} ${entry} ${name}: ${thrown.stderr}`).toMatch(new RegExp(`^${name}: `));
    }));
  });
});
