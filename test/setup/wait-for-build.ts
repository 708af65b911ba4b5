// Before a file that reads dist/ (vitest.config.ts lists them) is loaded: while `npm test` builds
// dist/ in the background (test/setup/build.ts), waits for the build to end, and fails the file
// with the build's output when it failed.
import { existsSync, readFileSync, watch } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { expect, inject } from 'vitest';
import type { BuildOutcome } from './build.js';

const root = join(import.meta.dirname, '..', '..');
const status = inject('distBuild');
const file = expect.getState().testPath;

if (status !== '' && file !== undefined && inject('distReaders').includes(relative(root, file).replaceAll('\\', '/'))) {
  if (!existsSync(status)) {
    await new Promise<void>((resolve) => {
      const watcher = watch(dirname(status), (_event, name) => {
        if (name === basename(status) && existsSync(status)) {
          watcher.close();
          resolve();
        }
      });
      // It may have been written between the check above and the watch.
      if (existsSync(status)) {
        watcher.close();
        resolve();
      }
    });
  }
  const outcome = JSON.parse(readFileSync(status, 'utf8')) as BuildOutcome;
  if (outcome.code !== 0) throw new Error(`npm run build failed (exit ${String(outcome.code)}), so this file, which reads dist/, cannot run:\n${outcome.output.slice(-4000)}`);
}
