// A JSON report one process writes once and others wait for (the background build's outcome, the
// run's `npm pack`): written whole, then renamed, so that a reader never sees half of it.
import { existsSync, readFileSync, renameSync, watch, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Writes `value` as the report at `path`, all at once. */
export function writeReport(path: string, value: unknown): void {
  writeFileSync(`${path}.part`, JSON.stringify(value));
  renameSync(`${path}.part`, path);
}

/** The report at `path`, once it is there; rejects after `timeoutMs` when one is given. */
export async function readReport<T>(path: string, timeoutMs?: number, what = path): Promise<T> {
  if (!existsSync(path)) {
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        watcher.close();
        clearTimeout(timer);
        resolve();
      };
      const watcher = watch(dirname(path), (_event, name) => {
        if (name === basename(path) && existsSync(path)) done();
      });
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
        watcher.close();
        reject(new Error(`waited ${String(timeoutMs)} ms for ${what}`));
      }, timeoutMs);
      // It may have been written between the check above and the watch.
      if (existsSync(path)) done();
    });
  }
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}
