// Before `npm test`: the servers and the browser the tests start, installed from Debian's packages
// where they are missing, so that the README's test command passes on a fresh machine with nothing
// done by hand. As root it installs them with apt-get, a line for each; otherwise it prints the
// command to run and fails: a missing tool fails the run, never skips a test.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const onPath = (command) => (process.env.PATH ?? '').split(':').some((directory) => directory !== '' && existsSync(join(directory, command)));
const postgresServer = () => {
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((version) => existsSync(join(root, version, 'bin', 'initdb')));
};

/** What the tests start, how to tell it is here, and Debian's package for it. */
const TOOLS = [
  { name: 'PostgreSQL server', needed: 'the PostgreSQL inbox and the deferred engines (test/**/*.pg.test.ts)', present: postgresServer, package: 'postgresql', recommends: false },
  { name: 'PgBouncer', needed: "the PostgreSQL inbox's pooler tests", present: () => existsSync('/usr/sbin/pgbouncer'), package: 'pgbouncer', recommends: false, service: 'pgbouncer' },
  { name: 'Redis', needed: 'the BullMQ tests', present: () => onPath('redis-server'), package: 'redis-server', recommends: false },
  // Chromium's recommended packages (fonts among them) are what the payment page's screenshot needs.
  { name: 'Chromium', needed: "the sandbox payment page's browser test", present: () => existsSync('/usr/bin/chromium'), package: 'chromium', recommends: true },
];

const missing = TOOLS.filter((tool) => !tool.present());
if (missing.length > 0) {
  const packages = missing.map((tool) => tool.package);
  for (const tool of missing) console.log(`payorch tests: ${tool.name} is missing (${tool.needed}); Debian's package: ${tool.package}`);
  const asRoot = process.getuid?.() === 0;
  if (!asRoot) {
    console.error(
      `payorch tests: installing needs root. Run this, then npm test again:\n  sudo apt-get update && sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y ${packages.join(' ')}`,
    );
    process.exit(1);
  }
  const apt = (args) => execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  apt(['update', '-qq']);
  for (const tool of missing) {
    console.log(`payorch tests: installing ${tool.package} with apt-get`);
    apt(['install', '-y', '-qq', ...(tool.recommends ? [] : ['--no-install-recommends']), tool.package]);
    // Debian starts the package's own service; the tests start servers of their own.
    if (tool.service !== undefined) {
      try {
        execFileSync('service', [tool.service, 'stop'], { stdio: 'ignore' });
      } catch {
        // No service manager here, or the service never started: nothing to stop.
      }
    }
    if (!tool.present()) {
      console.error(`payorch tests: ${tool.package} installed, but ${tool.name} is still not found`);
      process.exit(1);
    }
    console.log(`payorch tests: installed ${tool.name} (${tool.package})`);
  }
}
