import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

/** A merchant's project in a temp dir: a package.json, and node_modules holding `packages`. */
export interface TemporaryProject {
  readonly directory: string;
  /** Removes the directory (its links, not what they point at). */
  close(): void;
}

/**
 * A project of the test's own outside the repository, whose node_modules links each of
 * `packages` to this repository's install: what a command that loads packages from the current
 * directory finds there, and nothing of payorch's own node_modules besides. No package at all
 * makes a project that lacks them.
 */
export function temporaryProject(packages: readonly string[] = []): TemporaryProject {
  const directory = mkdtempSync(join(tmpdir(), 'payorch-project-'));
  writeFileSync(join(directory, 'package.json'), `${JSON.stringify({ name: 'merchant-shop', private: true, type: 'module' }, null, 2)}\n`);
  mkdirSync(join(directory, 'node_modules'));
  for (const name of packages) symlinkSync(join(root, 'node_modules', name), join(directory, 'node_modules', name), 'dir');
  return { directory, close: () => { rmSync(directory, { recursive: true, force: true }); } };
}
