import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './deferred.js';

/** A redis-server of the test's own: Debian's package (npm test installs it), a temp dir, a free loopback port. */
export interface RedisServer {
  readonly port: number;
  /** SIGTERM, and wait for it to exit: clients see Redis down. */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory: what it acknowledged before is there when durable (append-only, fsync always). */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}


/** How the server keeps what it acknowledged. */
export interface RedisServerSettings {
  /**
   * `'durable'`: append-only, fsync always, noeviction. `'volatile'`: Redis' own defaults (no
   * append-only file) with snapshots off, as a default install without persistence: a restart
   * loses everything. Extra `args` follow either (`['--maxmemory-policy', 'allkeys-lru']`).
   */
  readonly persistence?: 'durable' | 'volatile';
  readonly args?: readonly string[];
}

export async function startRedisServer(settings: RedisServerSettings = {}): Promise<RedisServer> {
  const directory = mkdtempSync(join(tmpdir(), 'payorch-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const kept = settings.persistence === 'volatile' ? ['--appendonly', 'no', '--save', ''] : ['--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--maxmemory-policy', 'noeviction'];
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--daemonize', 'no', ...kept, ...(settings.args ?? [])];
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const failed = new Promise<never>((_, reject) => {
      started.once('error', (error) => { reject(new Error(`redis-server could not start (apt-get install -y redis-server; npm test does): ${error.message}`)); });
      started.once('exit', (code) => { reject(new Error(`redis-server exited with ${code}: ${output}`)); });
    });
    failed.catch(() => undefined);
    await Promise.race([waitFor(() => output.includes('Ready to accept connections'), 10_000, 'redis-server to accept connections'), failed]);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => { resolve(); }));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    port,
    start,
    stop,
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
