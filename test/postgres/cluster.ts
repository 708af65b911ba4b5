// A throwaway PostgreSQL cluster for the tests: Debian's server binaries, a temporary directory,
// a free loopback port, trust authentication. PostgreSQL refuses to run as root, so as root the
// cluster belongs to the `postgres` user. Nothing of the machine's own clusters is touched.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { freePort } from '../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  stop(): void;
}

/** The newest installed server's bin directory, or undefined when there is none. */
export function postgresBinDirectory(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}


export async function startCluster(): Promise<Cluster> {
  const bin = postgresBinDirectory();
  if (bin === undefined) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql: apt-get install -y postgresql (npm test does)');
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
