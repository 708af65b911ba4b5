// Builds dist/ when it is missing or older than the sources, so that `npm test` and
// `npm run examples` work right after `npm ci` (the published package runs nothing at install
// time, so there is no `prepare` script to build it) without rebuilding on every run.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const mtime = (path) => {
  try {
    return statSync(join(root, path)).mtimeMs;
  } catch {
    return 0;
  }
};
const newestSource = Math.max(
  ...readdirSync(join(root, 'src'), { recursive: true }).map((file) => mtime(join('src', String(file)))),
  mtime('tsup.config.ts'),
  mtime('package.json'),
);
const built = Math.min(mtime('dist/index.js'), mtime('dist/index.cjs'), mtime('dist/webhooks/index.js'));
if (built < newestSource) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
