// A throwaway PgBouncer in front of the test cluster: $PAYORCH_TEST_PGBOUNCER, or the machine's
// (Debian's /usr/sbin/pgbouncer, Homebrew's, PATH's: scripts/test-servers.mjs), a temporary
// directory, a free loopback port, trust authentication towards the tests, the server URL's user
// and password towards the server. PgBouncer refuses to run as root, so as root it runs as the
// `postgres` user (setpriv). It stops with the test process at the latest. No Docker fallback: a
// pooler test needs the program here.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { TOOLS, given, missingMessage } from '../../scripts/test-servers.mjs';
import { freePort } from '../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Bouncer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, through the bouncer. */
  readonly url: string;
  stop(): Promise<void>;
}

export interface BouncerOptions {
  /** The server behind it, a postgres:// URL on 127.0.0.1. */
  readonly serverUrl: string;
  readonly poolMode: 'session' | 'transaction' | 'statement';
  /** Server connections per user and database: few, so that clients share them. */
  readonly poolSize?: number | undefined;
}


function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

export async function startBouncer(options: BouncerOptions): Promise<Bouncer> {
  const named = given(TOOLS.pgbouncer);
  if (named !== undefined && !existsSync(named)) throw new Error(`${TOOLS.pgbouncer.variable}=${named}: no such file`);
  const pgbouncer = named ?? TOOLS.pgbouncer.find();
  if (pgbouncer === undefined) throw new Error(missingMessage(TOOLS.pgbouncer));
  const server = new URL(options.serverUrl);
  const user = decodeURIComponent(server.username) || 'postgres';
  const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
  const asRoot = process.getuid?.() === 0;
  const directory = mkdtempSync(join(tmpdir(), 'payorch-bouncer-'));
  const port = await freePort();
  const ini = join(directory, 'pgbouncer.ini');
  // Trust lets the tests in; PgBouncer logs in to the server with the password listed here.
  writeFileSync(join(directory, 'users.txt'), `${quoted(user)} ${quoted(decodeURIComponent(server.password))}\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${join(directory, 'users.txt')}`,
      `pool_mode = ${options.poolMode}`,
      `default_pool_size = ${options.poolSize ?? 2}`,
      'max_client_conn = 200',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${join(directory, 'log')}`,
      '',
    ].join('\n'),
  );
  let command = pgbouncer;
  let args = [ini];
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    for (const file of ['', 'pgbouncer.ini', 'users.txt']) chownSync(join(directory, file), uid, gid);
    command = 'setpriv';
    args = ['--reuid=postgres', '--regid=postgres', '--init-groups', pgbouncer, ini];
  }
  const child = spawn(command, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const kill = (): void => {
    child.kill('SIGINT');
  };
  process.once('exit', kill);
  for (let tries = 0; !(await listening(port)); tries++) {
    if (tries === 100 || child.exitCode !== null) {
      kill();
      throw new Error(`pgbouncer did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${server.pathname.slice(1) || 'postgres'}`,
    async stop() {
      process.removeListener('exit', kill);
      kill();
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
