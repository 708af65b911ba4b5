// `npm pack` of the repository, made once a run: the files that read the packed package share its
// tarball and npm's list of what it holds. The first caller packs into the run's directory
// (test/setup/run-directory.ts); any other, in another worker, waits for the report it writes.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { readReport, writeReport } from './handoff.js';

const root = join(import.meta.dirname, '../..');

/** The packed package: its tarball, and the paths npm put in it. */
export interface Packed {
  readonly tarball: string;
  readonly files: readonly string[];
}

interface Report {
  readonly packed?: Packed;
  readonly error?: string;
}

let mine: Promise<Packed> | undefined;

/** Makes `directory`: true for the one caller of the run that made it, false for the others. */
function claimed(directory: string): boolean {
  try {
    mkdirSync(directory);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function pack(directory: string): Promise<Report> {
  try {
    // No script runs: the package is dist/ as built, which npm pack takes as it is.
    const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', directory], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    const [made] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
    return { packed: { tarball: join(directory, made.filename), files: made.files.map((file) => file.path) } };
  } catch (error) {
    return { error: `npm pack failed: ${String(error)}` };
  }
}

/** The package as `npm pack` makes it, packed once for the whole run. */
export function packed(timeoutMs = 60_000): Promise<Packed> {
  mine ??= (async () => {
    const directory = join(inject('runDirectory'), 'npm-pack');
    const report = join(directory, 'report.json');
    let outcome: Report;
    if (claimed(directory)) {
      outcome = await pack(directory);
      writeReport(report, outcome);
    } else {
      // Another worker packs: its report comes once npm is done.
      outcome = await readReport<Report>(report, timeoutMs, 'npm pack in another test file');
    }
    if (outcome.packed === undefined) throw new Error(outcome.error ?? 'npm pack made no report');
    return outcome.packed;
  })();
  return mine;
}
