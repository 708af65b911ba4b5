import { spawnSync } from 'node:child_process';
import { median } from './stats.js';

/** A node command line whose start-up is measured, run from `cwd` (where its imports resolve). */
export interface ColdCommand {
  readonly name: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** Printed by every measured process as its last act: its own CPU time since it started. */
const REPORT_CPU = 'process.stdout.write(JSON.stringify(process.cpuUsage()))';
const BARE = ['-e', REPORT_CPU];

interface Run {
  readonly wall: number;
  /** User + system CPU milliseconds of the process, start-up included, read just before it exits. */
  readonly cpu: number;
}

function run(args: readonly string[], cwd: string): Run {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const wall = performance.now() - start;
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} failed in ${cwd}: ${child.stderr.toString()}`);
  const { user, system } = JSON.parse(child.stdout.toString()) as { user: number; system: number };
  return { wall, cpu: (user + system) / 1000 };
}

export interface Added {
  /** Wall milliseconds added, one per pair. */
  readonly wall: number[];
  /** CPU milliseconds added, one per pair: steadier than wall time on a loaded machine. */
  readonly cpu: number[];
  /** Wall milliseconds of the bare halves. */
  readonly bare: number[];
  readonly bareCpu: number[];
}

/**
 * What each command adds to a bare node, as interleaved process pairs: every run of a command is
 * paired with a bare node started right before or right after it (alternating), and the figures
 * are the medians of the pairs' differences, in wall time and in the process's own CPU time. A
 * load that comes and goes on a shared machine then weighs on both halves of a pair. One warm-up
 * pass fills the file system cache. Every process, bare included, prints its CPU time at the end.
 */
export function addedByImport(commands: readonly ColdCommand[], runs: number): Map<string, Added> {
  const results = new Map<string, Added>(commands.map((command) => [command.name, { wall: [], cpu: [], bare: [], bareCpu: [] }]));
  for (const command of commands) run(command.args, command.cwd);
  run(BARE, process.cwd());
  for (let round = 0; round < runs; round++) {
    for (let c = 0; c < commands.length; c++) {
      const command = commands[(round + c) % commands.length]!;
      const bareFirst = (round + c) % 2 === 0;
      const before = bareFirst ? run(BARE, command.cwd) : undefined;
      const measured = run(command.args, command.cwd);
      const bare = before ?? run(BARE, command.cwd);
      const result = results.get(command.name)!;
      result.wall.push(measured.wall - bare.wall);
      result.cpu.push(measured.cpu - bare.cpu);
      result.bare.push(bare.wall);
      result.bareCpu.push(bare.cpu);
    }
  }
  return results;
}

export const esmImport = (specifier: string): readonly string[] => ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)}); ${REPORT_CPU}`];
export const cjsRequire = (specifier: string): readonly string[] => ['-e', `require(${JSON.stringify(specifier)}); ${REPORT_CPU}`];
export const esmScript = (code: string): readonly string[] => ['--input-type=module', '-e', `${code}; ${REPORT_CPU}`];

export { median };

/** How many times a bare node's start-up a command takes, from its pairs. */
export interface OverBare {
  /** Median over pairs of (bare + added) / bare, in wall time. */
  readonly wall: number;
  /** The same in the process's own CPU time. */
  readonly cpu: number;
  /**
   * The lower of the two: on a loaded machine wall time stretches (bare node's too) while CPU time
   * does not, and a brief CPU spike of one process weighs on CPU time; the lower is the steadier.
   */
  readonly judged: number;
}

export function overBare(added: Added): OverBare {
  const wall = median(added.wall.map((value, pair) => (added.bare[pair]! + value) / added.bare[pair]!));
  const cpu = median(added.cpu.map((value, pair) => (added.bareCpu[pair]! + value) / added.bareCpu[pair]!));
  return { wall, cpu, judged: Math.min(wall, cpu) };
}
