// `npm test` builds dist/ when it is missing or older than the sources (as scripts/ensure-built.mjs
// decides), in the background: the files that read dist/ wait for it (test/setup/wait-for-build.ts)
// while the others run, so that a fresh clone's build, much of it the declarations on one core,
// is not time the run spends doing nothing else. Under `npx vitest`, dist/ is left as it is: a file
// that reads it fails with the command to run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { distIsStale, root } from '../../scripts/ensure-built.mjs';
import { writeReport } from '../helpers/handoff.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file the background build writes its outcome to once it ends, or '' when none runs. */
    distBuild: string;
    /** The test files that read dist/, by path from the repository's root (vitest.config.ts). */
    distReaders: string[];
  }
}

/** What the build wrote to the status file. */
export interface BuildOutcome {
  readonly code: number | null;
  readonly output: string;
}

export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  project.provide('distBuild', '');
  if (process.env['npm_lifecycle_event'] !== 'test' || !distIsStale()) return undefined;
  // In the run's directory (test/setup/run-directory.ts, set up before this one and removed after).
  const status = join(project.getProvidedContext().runDirectory, 'build-outcome.json');
  let output = '';
  const build = spawn('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [build.stdout, build.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ended = new Promise<void>((resolve) => {
    let done = false;
    const end = (outcome: BuildOutcome): void => {
      if (done) return;
      done = true;
      writeReport(status, outcome);
      resolve();
    };
    build.on('error', (error) => {
      end({ code: null, output: `${output}\n${String(error)}` });
    });
    build.on('close', (code) => {
      end({ code, output });
    });
  });
  project.provide('distBuild', status);
  console.log('payorch tests: dist/ is missing or older than src/: building it (npm run build) while the files that do not read it run');
  return () => ended;
}
