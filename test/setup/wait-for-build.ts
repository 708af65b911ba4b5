// Before a file that reads dist/ (vitest.config.ts lists them) is loaded: while `npm test` builds
// dist/ in the background (test/setup/build.ts), waits for the build to end, and fails the file
// with the build's output when it failed.
import { join, relative } from 'node:path';
import { expect, inject } from 'vitest';
import { readReport } from '../helpers/handoff.js';
import type { BuildOutcome } from './build.js';

const root = join(import.meta.dirname, '..', '..');
const status = inject('distBuild');
const file = expect.getState().testPath;

if (status !== '' && file !== undefined && inject('distReaders').includes(relative(root, file).replaceAll('\\', '/'))) {
  const outcome = await readReport<BuildOutcome>(status);
  if (outcome.code !== 0) throw new Error(`npm run build failed (exit ${String(outcome.code)}), so this file, which reads dist/, cannot run:\n${outcome.output.slice(-4000)}`);
}
