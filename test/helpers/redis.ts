import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { TOOLS, dockerWorks, given, installCommand, missingMessage } from '../../scripts/test-servers.mjs';
import { waitFor } from './deferred.js';
import { freePort } from './free-port.js';

/** What ioredis and BullMQ connect with; spread it and add options of the test's own. */
export interface RedisConnection {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
}

/**
 * A Redis of the test's own, in this order: a database of its own on $PAYORCH_TEST_REDIS_URL's
 * server (emptied first); else the machine's redis-server (Debian's, Homebrew's, PATH's:
 * scripts/test-servers.mjs) on a temp dir and a free loopback port; else the official image in
 * Docker. Only the last two can be stopped and started: a test that restarts Redis fails, naming
 * the command, when Redis is only given by its URL.
 */
export interface RedisServer {
  readonly connection: RedisConnection;
  /** `redis://…/<db>`, for REDIS_URL and --redis-url. */
  readonly url: string;
  /** SIGTERM, and wait for it to exit: clients see Redis down. */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory: what it acknowledged before is there when durable (append-only, fsync always). */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

// Append-only with fsync on every write: a restart keeps what was acknowledged. BullMQ wants noeviction.
const SERVER_ARGS = ['--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--maxmemory-policy', 'noeviction'];

function urlOf(connection: RedisConnection): string {
  const url = new URL(`redis://${connection.host}:${String(connection.port)}/${String(connection.db)}`);
  if (connection.username !== undefined) url.username = connection.username;
  if (connection.password !== undefined) url.password = connection.password;
  return url.href;
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

const argsOf = (settings: RedisServerSettings): string[] => [...(settings.persistence === 'volatile' ? ['--appendonly', 'no', '--save', ''] : SERVER_ARGS), ...(settings.args ?? [])];

export async function startRedisServer(settings: RedisServerSettings = {}): Promise<RedisServer> {
  const url = given(TOOLS.redis);
  // A server given by URL has its own configuration: a test that needs another starts its own.
  const configured = settings.persistence === 'volatile' || settings.args !== undefined;
  if (url !== undefined && !configured) return givenRedis(url);
  const program = TOOLS.redis.find();
  if (program !== undefined) return localRedis(program, settings);
  if (dockerWorks()) return dockerRedis(settings);
  // A local redis-server or Docker would have been used even with the URL set: it need not be unset.
  if (url !== undefined) throw needsItsOwnRedis(`runs a Redis with settings of its own (${argsOf(settings).map((arg) => (arg === '' ? "''" : arg)).join(' ')})`, false);
  throw new Error(missingMessage(TOOLS.redis));
}

/** What a test that needs a Redis server of its own fails with where one is given by URL. */
function needsItsOwnRedis(what: string, unsetTheUrl: boolean): Error {
  const { variable } = TOOLS.redis;
  return new Error(`this test ${what}, which a server given by ${variable} cannot do: it needs redis-server here (${installCommand([TOOLS.redis])}) or Docker${unsetTheUrl ? `, with ${variable} unset` : ''}`);
}

/**
 * Databases 1 to 15 of the given server, one per call in turn (a counter in database 0), each
 * emptied before use: test files run side by side, and a queue's leftovers from an earlier run
 * would change what a test reads.
 */
async function givenRedis(url: string): Promise<RedisServer> {
  const parsed = new URL(url);
  const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  let db: number;
  try {
    await client.connect();
    const turn = await client.incr('payorch-test:databases');
    db = 1 + ((turn - 1) % 15);
    await client.select(db);
    await client.flushdb();
  } finally {
    client.disconnect();
  }
  const connection: RedisConnection = {
    host: parsed.hostname,
    port: Number(parsed.port || '6379'),
    db,
    ...(parsed.username === '' ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
  };
  const cannot = (): Promise<never> => Promise.reject(needsItsOwnRedis('stops and restarts Redis', true));
  return { connection, url: urlOf(connection), stop: cannot, start: cannot, close: () => Promise.resolve() };
}

async function localRedis(program: string, settings: RedisServerSettings): Promise<RedisServer> {
  const directory = mkdtempSync(join(tmpdir(), 'payorch-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const started = spawn(program, ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--daemonize', 'no', ...argsOf(settings)], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const failed = new Promise<never>((_, reject) => {
      started.once('error', (error) => { reject(new Error(`${program} could not start: ${error.message}`)); });
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
  const connection: RedisConnection = { host: '127.0.0.1', port, db: 0 };
  return {
    connection,
    url: urlOf(connection),
    start,
    stop,
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Resolves once Redis answers PING on the port. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve(answer.startsWith('+PONG'));
      }
    });
    socket.once('error', () => { resolve(false); });
  });
}

/** The official image on a loopback port; `docker stop` and `docker start` keep its append-only file. */
async function dockerRedis(settings: RedisServerSettings): Promise<RedisServer> {
  const port = await freePort();
  const id = execFileSync('docker', ['run', '-d', '-p', `127.0.0.1:${String(port)}:6379`, TOOLS.redis.docker, 'redis-server', ...argsOf(settings)], { encoding: 'utf8' }).trim();
  const ready = () => waitFor(() => pong(port), 30_000, 'Redis in Docker to answer PING');
  await ready();
  const connection: RedisConnection = { host: '127.0.0.1', port, db: 0 };
  return {
    connection,
    url: urlOf(connection),
    stop: () => {
      execFileSync('docker', ['stop', id], { stdio: 'ignore' });
      return Promise.resolve();
    },
    async start() {
      execFileSync('docker', ['start', id], { stdio: 'ignore' });
      await ready();
    },
    close: () => {
      execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
      return Promise.resolve();
    },
  };
}
