// Builds dist/ when it is missing or older than the sources, so that `npm run examples` and the
// snippet check work right after `npm ci` (the published package runs nothing at install time, so
// there is no `prepare` script to build it) without rebuilding on every run. `npm test` builds the
// same way, in the background, while the files that do not read dist/ run (test/setup/build.ts).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const root = join(import.meta.dirname, '..');

/** Whether dist/ is missing or older than src/ or what the build reads besides (its configs and steps). */
export function distIsStale() {
  const mtime = (path) => {
    try {
      return statSync(join(root, path)).mtimeMs;
    } catch {
      return 0;
    }
  };
  const newestSource = Math.max(
    ...readdirSync(join(root, 'src'), { recursive: true }).map((file) => mtime(join('src', String(file)))),
    ...['tsup.config.ts', 'package.json', 'tsconfig.json', 'scripts/declarations.tsconfig.json', 'scripts/emit-declarations.mjs', 'scripts/type-only-exports.mjs'].map(mtime),
  );
  const built = Math.min(mtime('dist/index.js'), mtime('dist/index.cjs'), mtime('dist/webhooks/index.js'));
  return built < newestSource;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && distIsStale()) {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}
