import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Path of a compiled bench script. `bench/main.ts` compiles `bench/{figures,children}/*.ts` into
 * `bench/.build/` keeping the folders, and every script runs from there under plain node.
 */
export function compiled(relative: `children/${string}` | `figures/${string}`): string {
  return fileURLToPath(new URL(`../${relative}.mjs`, import.meta.url));
}

export interface ServerProcess<I> {
  readonly url: string;
  /** What the server sent with its address (credentials, for example). */
  readonly info: I;
  readonly child: ChildProcess;
  /** CPU microseconds (user + system) the server process has used so far. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** Forks a server script and waits for its `{ type: 'listening', url, info }` message. */
export async function startServer<I = undefined>(script: `children/${string}`, args: readonly string[] = []): Promise<ServerProcess<I>> {
  // Under `npm run bench -- --profile`, servers are profiled too: their CPU is what a figure compares.
  const profileDir = process.env['PAYORCH_BENCH_PROFILE_DIR'];
  const execArgv = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const child = fork(compiled(script), args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url, info } = await new Promise<{ url: string; info: I }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      reject(new Error(`${script} exited with ${String(code)} before listening`));
    });
    child.once('message', (message: { type: string; url: string; info: I }) => {
      if (message.type === 'listening') resolve(message);
    });
  });
  child.removeAllListeners('exit');
  return {
    url,
    info,
    child,
    cpu: () =>
      new Promise<number>((resolve) => {
        child.once('message', (message: { type: string; cpu: number }) => {
          if (message.type === 'cpu') resolve(message.cpu);
        });
        child.send({ type: 'cpu' });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        // Disconnecting lets the server exit on its own (`announce`), writing its CPU profile if
        // it has one; a server that does not go within 5 s is killed.
        const timer = setTimeout(() => child.kill(), 5_000);
        if (child.connected) child.disconnect();
        else child.kill();
      }),
  };
}

/** Sends the parent the address a server script listens on, and answers its CPU-time questions. */
export function announce(url: string, info?: unknown): void {
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu', cpu: user + system });
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ type: 'listening', url, info });
}

/** Runs a script to completion and returns the one message it sent. */
export async function runChild<R>(script: `children/${string}`, args: readonly string[], execArgv: readonly string[] = []): Promise<R> {
  const child = fork(compiled(script), args, { execArgv: [...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<R>((resolve, reject) => {
    let result: { value: R } | undefined;
    child.once('message', (message: R) => {
      result = { value: message };
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (result !== undefined && code === 0) resolve(result.value);
      else reject(new Error(`${script} ${args.join(' ')} exited with ${String(code)}`));
    });
  });
}
