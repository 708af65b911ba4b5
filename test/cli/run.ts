import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { main } from '../../src/tools/cli/main.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { Sandbox, SandboxOptions } from '../../src/tools/sandbox/index.js';

/*
 * The CLI's tests run its commands in-process through their injected Io (src/tools/cli/main.ts): the
 * same code, without starting node for each case. What is about the process itself (the
 * shebang, exit codes, a closed pipe, signals, variables node reads at start-up) runs the built
 * binary, `node dist/cli.js`, as `npx payorch` runs it: test/cli/binary.test.ts.
 */

export const root = join(import.meta.dirname, '../..');
export const CLI = join(root, 'dist/cli.js');
export const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

function newest(directory: string): number {
  let latest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Fails the file at once, with the fix, when dist/cli.js is missing or older than src/ (for the tests of the binary). */
export function requireFreshBuild(): void {
  beforeAll(() => {
    let built: number;
    try {
      built = statSync(CLI).mtimeMs;
    } catch {
      throw new Error('dist/cli.js is missing: run npm run build (the CLI tests run the built binary)');
    }
    if (built < newest(join(root, 'src'))) throw new Error('dist/cli.js is older than src/: run npm run build (the CLI tests run the built binary)');
  });
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A stream that keeps what is written to it, and tells listeners each time. */
class Capture extends Writable {
  text = '';
  readonly #listeners = new Set<() => void>();
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    for (const listener of this.#listeners) listener();
    callback();
  }
  /** Resolves with everything written once `until` matches it. */
  until(until: RegExp): Promise<string> {
    return new Promise((resolve) => {
      const check = () => {
        if (!until.test(this.text)) return;
        this.#listeners.delete(check);
        resolve(this.text);
      };
      this.#listeners.add(check);
      check();
    });
  }
}

/** A command running in this process: its output so far, and how to stop it as Ctrl+C would. */
export interface InProcess {
  readonly stdout: Capture;
  readonly stderr: Capture;
  /** Resolves to the exit code. */
  readonly done: Promise<number>;
  /** Aborts the command's signal (the sandbox stops on it) and resolves to the exit code. */
  readonly stop: () => Promise<number>;
}

const inProcess = new Set<InProcess>();
afterEach(async () => {
  await Promise.all([...inProcess].map((command) => command.stop()));
  inProcess.clear();
});

/**
 * Starts `payorch ...args` in this process with only the given environment (no PAYORCH_* of the
 * machine leaks in, no NO_COLOR unless given), reading `stdin`, in the directory `cwd` (the
 * process's own when left out); neither output is a terminal.
 */
export function run(args: readonly string[], env: Record<string, string> = {}, stdin = '', cwd?: string): InProcess {
  const stdout = new Capture();
  const stderr = new Capture();
  const controller = new AbortController();
  const done = main(args, { stdout, stderr, stdin: Readable.from([stdin]), env, signal: controller.signal, ...(cwd === undefined ? {} : { cwd }) }, version);
  const command: InProcess = {
    stdout,
    stderr,
    done,
    stop: () => {
      controller.abort();
      return done;
    },
  };
  inProcess.add(command);
  void done.finally(() => inProcess.delete(command));
  return command;
}

/** Runs `payorch ...args` in this process to its end. */
export async function payorch(args: readonly string[], env: Record<string, string> = {}, stdin = '', cwd?: string): Promise<Run> {
  const command = run(args, env, stdin, cwd);
  const code = await command.done;
  return { code, stdout: command.stdout.text, stderr: command.stderr.text };
}

const running = new Set<ChildProcessWithoutNullStreams>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/**
 * Starts the built binary, `node dist/cli.js ...args`, with only the given environment,
 * writing `stdin` to it, in the directory `cwd` (the repository when left out).
 */
export function start(args: readonly string[], env: Record<string, string> = {}, stdin = '', cwd = root): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', ...env } });
  running.add(child);
  child.on('exit', () => running.delete(child));
  child.stdin.end(stdin);
  return child;
}

/** Runs the built binary to its end. */
export function spawnPayorch(args: readonly string[], env: Record<string, string> = {}, stdin = '', cwd = root): Promise<Run> {
  const child = start(args, env, stdin, cwd);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** Everything a process prints on stdout until `until` matches it. */
export function outputUntil(child: ChildProcessWithoutNullStreams, until: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (until.test(text)) resolve(text);
    });
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    child.on('exit', (code) => {
      reject(new Error(`payorch exited with ${code} before printing ${until}: ${text}${errors}`));
    });
  });
}

export const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => { resolve(code); });
  });

/** The secret appears in neither output stream. */
export function expectNoSecret(run: Run, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
}

/**
 * What a terminal acts on besides a line end: C0 and C1 controls, DEL, the line and paragraph
 * separators and the bidirectional overrides. Text from outside must reach a text line escaped.
 */
// eslint-disable-next-line no-control-regex -- looking for control characters is the point
export const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** The parsed JSON of stdout. */
export const jsonOf = (run: Run): Record<string, unknown> => JSON.parse(run.stdout) as Record<string, unknown>;

/** A sandbox listening on loopback in this process, and the environment the CLI reads for it. */
export async function listeningSandbox(options: SandboxOptions = {}): Promise<{ sandbox: Sandbox; url: string; env: Record<string, string>; close: () => Promise<void> }> {
  const sandbox = createSandbox(options);
  const running = await sandbox.listen({ port: 0, host: '127.0.0.1' });
  const { provider, dealer } = sandbox.accounts;
  const env = {
    PAYORCH_BASE_URL: running.url,
    PAYORCH_PROVIDER_API_KEY: provider.apiKey,
    PAYORCH_PROVIDER_SECRET_KEY: provider.secretKey,
    PAYORCH_CREDENTIAL_KEY: provider.sites[0].credentialKey,
    PAYORCH_SITES_KEY: provider.key,
    PAYORCH_DEALER_API_KEY: dealer.apiKey,
    PAYORCH_DEALER_SECRET_KEY: dealer.secretKey,
  };
  return { sandbox, url: running.url, env, close: () => running.close() };
}

/** `payorch ...args` is bad usage: exit 2, the message on stderr, nothing on stdout. */
export async function expectUsageError(args: readonly string[], env: Record<string, string>, message: RegExp): Promise<void> {
  const run = await payorch(args, env);
  expect(run.stderr).toMatch(message);
  expect(run.stdout).toBe('');
  expect(run.code).toBe(2);
}

type ListeningSandbox = Awaited<ReturnType<typeof listeningSandbox>>;

/** One sandbox for the whole file, started before its tests and closed after them. */
export function useListeningSandbox(options: SandboxOptions = {}): Omit<ListeningSandbox, 'close'> {
  let current: ListeningSandbox | undefined;
  beforeAll(async () => {
    current = await listeningSandbox(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  const started = (): ListeningSandbox => {
    if (current === undefined) throw new Error('the sandbox starts in beforeAll');
    return current;
  };
  return {
    get sandbox() {
      return started().sandbox;
    },
    get url() {
      return started().url;
    },
    get env() {
      return started().env;
    },
  };
}
