// A temp directory for the whole run, removed when it ends: what several files would each make at
// a cost, one of them makes there once and the others read (test/helpers/packed.ts, the background
// build's outcome).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared temp directory. */
    runDirectory: string;
  }
}

export default function setup(project: TestProject): () => void {
  const directory = mkdtempSync(join(tmpdir(), 'payorch-run-'));
  project.provide('runDirectory', directory);
  return () => {
    rmSync(directory, { recursive: true, force: true });
  };
}
