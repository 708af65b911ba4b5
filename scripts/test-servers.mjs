// The servers and the browser the tests start: the one list, read by scripts/ensure-tools.mjs
// before `npm test` and by the test helpers that start them (test/postgres/cluster.ts,
// test/postgres/bouncer.ts, test/helpers/redis.ts, test/sandbox/browser.test.ts). Each is found
// in this order: given by its variable (a URL or a path), installed on this machine (Debian's or
// Homebrew's places, or PATH), or, for PostgreSQL and Redis, run in Docker. Where none is, the
// message names the one command for this machine: a missing tool fails, never skips.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

const pathDirectories = () => (process.env.PATH ?? '').split(delimiter).filter((directory) => directory !== '');
/** The first of `names` on PATH, or in `places` (directories a non-root PATH often lacks). */
const onPath = (names, places = []) => {
  for (const directory of [...pathDirectories(), ...places]) {
    for (const name of names) if (existsSync(join(directory, name))) return join(directory, name);
  }
  return undefined;
};
// Homebrew's prefixes: Apple silicon, then Intel.
const BREW = ['/opt/homebrew', '/usr/local'];

function postgresBinDirectory() {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const newest = readdirSync(debian)
      .filter((version) => existsSync(join(debian, version, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))[0];
    if (newest !== undefined) return join(debian, newest, 'bin');
  }
  const pgConfig = onPath(['pg_config']);
  if (pgConfig !== undefined) {
    try {
      const bin = execFileSync(pgConfig, ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (existsSync(join(bin, 'initdb'))) return bin;
    } catch {
      // A pg_config that does not run: look further.
    }
  }
  const initdb = onPath(['initdb']);
  if (initdb !== undefined) return dirname(initdb);
  // Homebrew's postgresql@N is keg-only: its bin directory is not linked onto PATH.
  for (const prefix of BREW) {
    const opt = join(prefix, 'opt');
    if (!existsSync(opt)) continue;
    const kegs = readdirSync(opt)
      .filter((name) => /^postgresql(@\d+)?$/.test(name) && existsSync(join(opt, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b.split('@')[1] ?? 0) - Number(a.split('@')[1] ?? 0));
    if (kegs[0] !== undefined) return join(opt, kegs[0], 'bin');
  }
  return undefined;
}

/**
 * What the tests start. `variable` gives it instead: a URL for a server the tests may use
 * (they create and empty databases and queues of their own), a path for a program.
 */
export const TOOLS = {
  postgres: {
    name: 'PostgreSQL server',
    needed: 'the PostgreSQL inbox and the deferred engines (test/**/*.pg.test.ts)',
    variable: 'PAYORCH_TEST_DATABASE_URL',
    example: 'postgres://postgres@127.0.0.1:5432/postgres',
    apt: 'postgresql',
    brew: 'postgresql@15',
    docker: 'postgres:15',
    /** The directory of initdb and pg_ctl. */
    find: postgresBinDirectory,
  },
  pgbouncer: {
    name: 'PgBouncer',
    needed: "the PostgreSQL inbox's pooler tests",
    variable: 'PAYORCH_TEST_PGBOUNCER',
    example: '/path/to/pgbouncer',
    apt: 'pgbouncer',
    brew: 'pgbouncer',
    // Debian starts the package's own service; the tests start servers of their own.
    service: 'pgbouncer',
    find: () => onPath(['pgbouncer'], ['/usr/sbin', ...BREW.map((prefix) => join(prefix, 'bin'))]),
  },
  redis: {
    name: 'Redis',
    needed: 'the BullMQ tests',
    variable: 'PAYORCH_TEST_REDIS_URL',
    example: 'redis://127.0.0.1:6379',
    apt: 'redis-server',
    brew: 'redis',
    docker: 'redis:7',
    find: () => onPath(['redis-server'], BREW.map((prefix) => join(prefix, 'bin'))),
  },
  chromium: {
    name: 'Chromium',
    needed: "the sandbox payment page's browser test",
    variable: 'PAYORCH_TEST_CHROMIUM',
    example: '/path/to/chromium',
    // Chromium's recommended packages (fonts among them) are what the payment page's screenshot needs.
    apt: 'chromium',
    aptRecommends: true,
    brew: '--cask chromium',
    find: () => {
      const app = '/Applications/Chromium.app/Contents/MacOS/Chromium';
      if (process.platform === 'darwin' && existsSync(app)) return app;
      return onPath(['chromium', 'chromium-browser'], ['/usr/bin']);
    },
  },
};

/** The tool's variable, when set. */
export function given(tool) {
  const value = process.env[tool.variable];
  return value === undefined || value === '' ? undefined : value;
}

let dockerAnswer;
/** Docker with a daemon that answers (a client alone will not run a container). */
export function dockerWorks() {
  if (dockerAnswer === undefined) {
    try {
      execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 15_000 });
      dockerAnswer = true;
    } catch {
      dockerAnswer = false;
    }
  }
  return dockerAnswer;
}

/** How this machine installs packages: Homebrew on macOS, apt on Debian and Ubuntu, else neither. */
export function packageManager() {
  if (process.platform === 'darwin') return 'brew';
  return onPath(['apt-get']) === undefined ? 'none' : 'apt';
}

/** The one command that installs `tools` here, or the variables to set where no package manager is known. */
export function installCommand(tools) {
  switch (packageManager()) {
    case 'apt': {
      const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
      return `${sudo}apt-get update && ${sudo}env DEBIAN_FRONTEND=noninteractive apt-get install -y ${tools.map((tool) => tool.apt).join(' ')}`;
    }
    case 'brew': {
      const formulae = tools.filter((tool) => !tool.brew.startsWith('--cask')).map((tool) => tool.brew);
      const casks = tools.filter((tool) => tool.brew.startsWith('--cask')).map((tool) => tool.brew);
      return [...(formulae.length > 0 ? [`brew install ${formulae.join(' ')}`] : []), ...casks.map((cask) => `brew install ${cask}`)].join(' && ');
    }
    case 'none':
      return `set ${tools.map((tool) => `${tool.variable}=${tool.example}`).join(' ')}`;
  }
  throw new Error('unknown package manager');
}

/** Why a test cannot start `tool` here, and the one thing to do about it. */
export function missingMessage(tool, purpose = tool.needed) {
  const where = tool.docker === undefined ? '' : ' and no Docker daemon answers';
  const variable = `set ${tool.variable}=${tool.example}`;
  return `${tool.name} not found (${purpose})${where}: ${packageManager() === 'none' ? variable : `${installCommand([tool])}, or ${variable}`}`;
}
