// A throwaway PgBouncer in front of the test cluster: Debian's /usr/sbin/pgbouncer, a temporary
// directory, a free loopback port, trust authentication. PgBouncer refuses to run as root, so as
// root it runs as the `postgres` user (setpriv). It stops with the test process at the latest.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from '../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

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
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} not found: apt-get install -y pgbouncer (npm test does)`);
  const server = new URL(options.serverUrl);
  const asRoot = process.getuid?.() === 0;
  const directory = mkdtempSync(join(tmpdir(), 'payorch-bouncer-'));
  const port = await freePort();
  const ini = join(directory, 'pgbouncer.ini');
  writeFileSync(join(directory, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port}`,
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
  let command = PGBOUNCER;
  let args = [ini];
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    for (const file of ['', 'pgbouncer.ini', 'users.txt']) chownSync(join(directory, file), uid, gid);
    command = 'setpriv';
    args = ['--reuid=postgres', '--regid=postgres', '--init-groups', PGBOUNCER, ini];
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
    url: `postgres://postgres@127.0.0.1:${port}/${server.pathname.slice(1) || 'postgres'}`,
    async stop() {
      process.removeListener('exit', kill);
      kill();
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
