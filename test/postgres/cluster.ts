// A throwaway PostgreSQL cluster for the tests: the machine's server binaries (Debian's, Homebrew's
// or PATH's: scripts/test-servers.mjs), a temporary directory, a free loopback port, trust
// authentication; where there are none and Docker answers, the official image instead.
// PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user.
// Nothing of the machine's own clusters is touched.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TOOLS, dockerWorks, missingMessage } from '../../scripts/test-servers.mjs';
import { freePort } from '../helpers/free-port.js';

export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  stop(): void;
}

/** The newest installed server's bin directory, or undefined when there is none. */
export function postgresBinDirectory(): string | undefined {
  return TOOLS.postgres.find();
}

export async function startCluster(): Promise<Cluster> {
  const bin = postgresBinDirectory();
  if (bin === undefined) {
    if (dockerWorks()) return startDockerCluster();
    throw new Error(missingMessage(TOOLS.postgres));
  }
  const asRoot = process.getuid?.() === 0;
  const directory = mkdtempSync(join(tmpdir(), 'payorch-pg-'));
  const run = (command: string, args: string[]): void => {
    const [file, list] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    execFileSync(file, list, { stdio: 'pipe' });
  };
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const group = execFileSync('id', ['-g', 'postgres']).toString().trim();
    chownSync(directory, Number(ids), Number(group));
  }
  const data = join(directory, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  run('pg_ctl', ['-D', data, '-l', join(directory, 'log'), '-o', `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`, '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

/** The same cluster from the official image: trust authentication, published on a loopback port. */
async function startDockerCluster(): Promise<Cluster> {
  const port = await freePort();
  const id = execFileSync('docker', ['run', '-d', '--rm', '-p', `127.0.0.1:${port}:5432`, '-e', 'POSTGRES_HOST_AUTH_METHOD=trust', TOOLS.postgres.docker, '-c', 'fsync=off'], { encoding: 'utf8' }).trim();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = (): void => {
    execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
  };
  // The image runs initdb, then restarts the server once: ready is when a query is answered.
  for (let tries = 0; ; tries++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return { url, stop };
    } catch (error) {
      await client.end().catch(() => undefined);
      if (tries === 120) {
        stop();
        throw new Error(`PostgreSQL in Docker (${TOOLS.postgres.docker}) did not answer within 60 s`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
