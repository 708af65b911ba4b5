import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import type pg from 'pg';
import { createCallbackReceiver } from '../../src/webhooks/index.js';
import type { CallbackJob, CallbackReceiver } from '../../src/webhooks/index.js';
import { createPostgresInboxTable, createPostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { PROVIDER } from './wire.js';
import { freePort } from './free-port.js';

/*
 * What the queue engine tests (test/webhooks/receiver/deferred-*.pg.test.ts) share: a ledger table the
 * handlers write in the inbox's transaction (a row per application, so a double shows), the
 * applying receiver, a worker process to kill, and a way to wait without sleeping blindly.
 */

/** Creates the inbox table and an empty ledger named `table`. */
export async function createLedger(pool: pg.Pool, table: string): Promise<void> {
  await createPostgresInboxTable({ pool });
  await pool.query(`DROP TABLE IF EXISTS ${table}`);
  await pool.query(`CREATE TABLE ${table} (tracking_code text NOT NULL, status text NOT NULL, amount numeric NOT NULL, worker text NOT NULL)`);
}

/** The rows of the ledger for one tracking code: one per application. */
export async function applications(pool: pg.Pool, table: string, trackingCode: string): Promise<{ status: string; worker: string }[]> {
  const { rows } = await pool.query<{ status: string; worker: string }>(`SELECT status, worker FROM ${table} WHERE tracking_code = $1`, [trackingCode]);
  return rows;
}

/** How the test's own worker behaves per tracking code: a slow handler, or a few failures first. */
export interface Behaviour {
  readonly handlerMs?: number;
  readonly failures?: number;
}

/**
 * The receiver a worker applies jobs with: the PostgreSQL inbox, and one handler that writes the
 * ledger in its transaction. `attempts` counts the handler's runs per tracking code.
 */
export function applyingReceiver(pool: pg.Pool, table: string, behaviour: (trackingCode: string) => Behaviour): {
  receiver: CallbackReceiver<PostgresInboxContext<pg.PoolClient>>;
  attempts: Map<string, number>;
} {
  const attempts = new Map<string, number>();
  const receiver = createCallbackReceiver({ ...PROVIDER, inbox: createPostgresInbox({ pool }), onError: () => undefined });
  receiver.on('deposit', async (callback, { client }) => {
    const code = callback.payload.tracking_code;
    const attempt = (attempts.get(code) ?? 0) + 1;
    attempts.set(code, attempt);
    const { handlerMs = 0, failures = 0 } = behaviour(code);
    await client.query(`INSERT INTO ${table} (tracking_code, status, amount, worker) VALUES ($1, $2, $3, 'test')`, [code, callback.payload.status, callback.payload.amount]);
    if (handlerMs > 0) await new Promise((resolve) => setTimeout(resolve, handlerMs));
    if (attempt <= failures) throw new Error(`deadlock detected (attempt ${attempt})`);
  });
  return { receiver, attempts };
}

/** The receiving side: verifies and enqueues; applies nothing itself. */
export function enqueuingReceiver(enqueue: (job: CallbackJob) => Promise<void>): CallbackReceiver<unknown> {
  return createCallbackReceiver({ ...PROVIDER, enqueue, onError: () => undefined });
}

/** Resolves once `check` returns true, polling every 50 ms; rejects after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Reads `read` until `done` holds of its value, for at most 20 s (a queue's retry waits 5 s), and
 * returns the last value, for the caller to assert on. The pause between reads grows to 0.2 s: a
 * read of D1 is a request to workerd, and polled every few milliseconds through a retry's wait, it
 * cost the run seconds of CPU.
 */
export async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (let pause = 10; ; pause = Math.min(pause * 1.5, 200)) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** A worker in its own process (test/webhooks/receiver/fixtures/deferred-worker.mjs, which imports the built package from dist/), with a promise of each line it prints. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Resolves when the worker printed a line starting with `prefix`. */
  line(prefix: string, timeoutMs: number): Promise<string>;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
}

export function startWorkerProcess(env: Readonly<Record<string, string>>): WorkerProcess {
  const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'webhooks', 'receiver', 'fixtures', 'deferred-worker.mjs')], {
    env: { ...process.env, WORKER_API_KEY: PROVIDER.apiKey, WORKER_SECRET_KEY: PROVIDER.secretKey, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return {
    child,
    async line(prefix, timeoutMs) {
      let found: string | undefined;
      let gone = false;
      void exited.then(() => (gone = true));
      await waitFor(
        () => {
          found = output.split('\n').find((each) => each.startsWith(prefix));
          if (found === undefined && gone) throw new Error(`the worker exited before printing "${prefix}":\n${output}`);
          return found !== undefined;
        },
        timeoutMs,
        `the worker to print "${prefix}" (output so far: ${output})`,
      );
      return found ?? '';
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A TCP proxy to `port` that can be taken down (every connection cut, new ones refused) and brought back on the same port. */
export async function tcpProxy(port: number): Promise<{ port: number; down(): Promise<void>; up(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  // Not an ephemeral port, which another connection could take while the proxy is down (freePort).
  let own = await freePort();
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(port, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(own, '127.0.0.1', () => {
        const address = server?.address();
        if (typeof address === 'object' && address !== null) own = address.port;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server === undefined) resolve();
      else server.close(() => { resolve(); });
      server = undefined;
    });
  for (let tries = 1; ; tries += 1) {
    try {
      await listen();
      break;
    } catch (error) {
      // Taken between freePort's check and this listen.
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries === 20) throw error;
      own = await freePort();
    }
  }
  return { port: own, down, up: listen, close: down };
}
