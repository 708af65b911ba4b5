import { spawnSync } from 'node:child_process';
import { median } from './stats.js';

/** A node command line whose start-up is measured, run from `cwd` (where its imports resolve). */
export interface ColdCommand {
  readonly name: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

const BARE = ['-e', ''];

function wallMs(args: readonly string[], cwd: string): number {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - start;
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} failed in ${cwd}: ${child.stderr.toString()}`);
  return ms;
}

/**
 * What each command adds to a bare `node -e ""`, as interleaved process pairs: every run of a
 * command is paired with a bare node started right before or right after it (alternating), and
 * the figure is the median of the pairs' differences. A load that comes and goes on a shared
 * machine then weighs on both halves of a pair. One warm-up pass fills the file system cache.
 */
export function addedByImport(commands: readonly ColdCommand[], runs: number): Map<string, { added: number[]; bare: number[] }> {
  const results = new Map(commands.map((command) => [command.name, { added: [] as number[], bare: [] as number[] }]));
  for (const command of commands) wallMs(command.args, command.cwd);
  wallMs(BARE, process.cwd());
  for (let run = 0; run < runs; run++) {
    for (let c = 0; c < commands.length; c++) {
      const command = commands[(run + c) % commands.length]!;
      const bareFirst = (run + c) % 2 === 0;
      const bare = bareFirst ? wallMs(BARE, command.cwd) : 0;
      const ms = wallMs(command.args, command.cwd);
      const bareAfter = bareFirst ? bare : wallMs(BARE, command.cwd);
      const result = results.get(command.name)!;
      result.added.push(ms - bareAfter);
      result.bare.push(bareAfter);
    }
  }
  return results;
}

export const esmImport = (specifier: string): readonly string[] => ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`];
export const cjsRequire = (specifier: string): readonly string[] => ['-e', `require(${JSON.stringify(specifier)})`];

export { median };
