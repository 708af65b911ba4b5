// Before `npm test`: the servers and the browser the tests start (scripts/test-servers.mjs), so
// that the README's test command passes on a fresh machine with nothing done by hand. A tool is
// there when its variable gives it, when it is installed, or (PostgreSQL, Redis) when Docker
// answers. On Debian or Ubuntu as root the missing ones are installed with apt-get; anywhere else
// this prints the one command for the machine (apt, Homebrew, or the variables) and fails: a
// missing tool fails the run, never skips a test.
// `--install-command` prints that command (nothing when all are here) and exits 0, for CI.
import { execFileSync } from 'node:child_process';
import { TOOLS, dockerWorks, given, installCommand, packageManager } from './test-servers.mjs';

const present = (tool) => given(tool) !== undefined || tool.find() !== undefined || (tool.docker !== undefined && dockerWorks());
const missing = Object.values(TOOLS).filter((tool) => !present(tool));

if (process.argv.includes('--install-command')) {
  if (missing.length > 0) console.log(installCommand(missing));
  process.exit(0);
}

if (missing.length > 0) {
  for (const tool of missing) console.log(`payorch tests: ${tool.name} is missing (${tool.needed}); or set ${tool.variable}=${tool.example}`);
  if (packageManager() !== 'apt' || process.getuid?.() !== 0) {
    console.error(`payorch tests: run this, then npm test again:\n  ${installCommand(missing)}`);
    process.exit(1);
  }
  const apt = (args) => execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  apt(['update', '-qq']);
  for (const tool of missing) {
    console.log(`payorch tests: installing ${tool.apt} with apt-get`);
    apt(['install', '-y', '-qq', ...(tool.aptRecommends === true ? [] : ['--no-install-recommends']), tool.apt]);
    if (tool.service !== undefined) {
      try {
        execFileSync('service', [tool.service, 'stop'], { stdio: 'ignore' });
      } catch {
        // No service manager here, or the service never started: nothing to stop.
      }
    }
    if (!present(tool)) {
      console.error(`payorch tests: ${tool.apt} installed, but ${tool.name} is still not found`);
      process.exit(1);
    }
    console.log(`payorch tests: installed ${tool.name} (${tool.apt})`);
  }
}
